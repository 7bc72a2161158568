import { encodePng, type RgbImage } from './png.js';
import type { Forecast } from './weather-model.js';

/**
 * A forecast drawn as a PNG: one column per day, a bar from the day's low to its high
 * (coloured from cool to warm), grid lines every 5 °C, and the chance of rain as a blue strip
 * along the bottom. Pixels only, no text: there is no font here.
 */

type Rgb = readonly [number, number, number];

const WIDTH = 480;
const HEIGHT = 240;
const MARGIN = 16;
const RAIN_STRIP = 28;
const BACKGROUND: Rgb = [250, 250, 247];
const GRID: Rgb = [222, 222, 216];
const ZERO_LINE: Rgb = [150, 150, 150];
const COOL: Rgb = [66, 133, 244];
const WARM: Rgb = [244, 129, 66];
const RAIN: Rgb = [90, 160, 220];

class Canvas implements RgbImage {
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    fill: Rgb,
  ) {
    this.pixels = new Uint8Array(width * height * 3);
    this.rect(0, 0, width, height, fill);
  }

  /** Fills the rectangle [x0, x1) × [y0, y1), clipped to the canvas. */
  rect(x0: number, y0: number, x1: number, y1: number, color: Rgb): void {
    const left = Math.max(0, Math.floor(x0));
    const right = Math.min(this.width, Math.ceil(x1));
    const top = Math.max(0, Math.floor(y0));
    const bottom = Math.min(this.height, Math.ceil(y1));
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) this.pixels.set(color, (y * this.width + x) * 3);
    }
  }
}

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  const channel = (i: 0 | 1 | 2) => Math.round(a[i] + (b[i] - a[i]) * t);
  return [channel(0), channel(1), channel(2)];
}

/** The chart's raster (for tests and other encoders). */
export function drawForecast(data: Forecast): RgbImage {
  const canvas = new Canvas(WIDTH, HEIGHT, BACKGROUND);
  const lows = data.days.map((d) => d.lowC);
  const highs = data.days.map((d) => d.highC);
  const min = Math.floor((Math.min(...lows) - 2) / 5) * 5;
  const max = Math.ceil((Math.max(...highs) + 2) / 5) * 5;
  const plotTop = MARGIN;
  const plotBottom = HEIGHT - MARGIN - RAIN_STRIP;
  const yOf = (celsius: number) => plotBottom - ((celsius - min) / (max - min)) * (plotBottom - plotTop);

  for (let t = min; t <= max; t += 5) canvas.rect(MARGIN, yOf(t), WIDTH - MARGIN, yOf(t) + 1, GRID);
  if (min < 0 && max > 0) canvas.rect(MARGIN, yOf(0), WIDTH - MARGIN, yOf(0) + 1, ZERO_LINE);

  const column = (WIDTH - 2 * MARGIN) / Math.max(1, data.days.length);
  const barWidth = Math.max(4, column * 0.5);
  data.days.forEach((day, i) => {
    const x0 = MARGIN + i * column + (column - barWidth) / 2;
    const top = Math.round(yOf(day.highC));
    const bottom = Math.round(yOf(day.lowC));
    // Warmer towards the top of the bar, on one scale for the whole chart.
    for (let y = top; y < bottom; y++) {
      const celsius = min + ((plotBottom - y) / (plotBottom - plotTop)) * (max - min);
      canvas.rect(x0, y, x0 + barWidth, y + 1, mix(COOL, WARM, (celsius - min) / (max - min)));
    }
    const rain = (day.precipitationChance / 100) * (RAIN_STRIP - 6);
    canvas.rect(x0, HEIGHT - MARGIN - rain, x0 + barWidth, HEIGHT - MARGIN, RAIN);
  });
  return canvas;
}

/** The chart as PNG bytes. */
export function forecastChartPng(data: Forecast): Buffer {
  return encodePng(drawForecast(data));
}

export const CHART_SIZE = { width: WIDTH, height: HEIGHT } as const;
