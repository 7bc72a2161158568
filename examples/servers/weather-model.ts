import { z } from 'zod';

/**
 * The demo's weather: made up, and the same for the same city every time (a seeded generator,
 * no clock, no network), so a demo, a test and a screenshot all show the same numbers.
 */

export const CONDITIONS = [
  'sunny',
  'partly cloudy',
  'cloudy',
  'light rain',
  'showers',
  'thunderstorms',
  'fog',
  'windy',
] as const;

/** One day of a forecast; `day` 0 is today. */
export const ForecastDaySchema = z.object({
  day: z.number().int().min(0).describe('Days from today: 0 is today.'),
  label: z.string().describe('"today", "tomorrow", "in 2 days", …'),
  conditions: z.enum(CONDITIONS),
  highC: z.number().describe('Highest temperature, °C.'),
  lowC: z.number().describe('Lowest temperature, °C.'),
  precipitationChance: z.number().min(0).max(100).describe('Chance of rain, percent.'),
  windKph: z.number().min(0).describe('Wind speed, km/h.'),
});

/** What `get_forecast` returns as structured content (its `outputSchema`). */
export const ForecastSchema = z.object({
  city: z.string(),
  unit: z.literal('celsius'),
  days: z.array(ForecastDaySchema),
});

export type ForecastDay = z.infer<typeof ForecastDaySchema>;
export type Forecast = z.infer<typeof ForecastSchema>;

/** FNV-1a (32 bits) of the normalized city name: the seed. */
function seedOf(city: string): number {
  let hash = 0x811c9dc5;
  for (const char of city.trim().toLowerCase()) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function label(day: number): string {
  if (day === 0) return 'today';
  if (day === 1) return 'tomorrow';
  return `in ${day} days`;
}

/** The forecast for `city`, `days` days from today (1–7). */
export function forecast(city: string, days: number): Forecast {
  const random = generator(seedOf(city));
  // A climate per city: a base temperature between 4 and 26 °C, drifting a little each day.
  let base = 4 + Math.round(random() * 22);
  const out: ForecastDay[] = [];
  for (let day = 0; day < days; day++) {
    base += Math.round(random() * 4) - 2;
    const spread = 4 + Math.round(random() * 6);
    const conditions = CONDITIONS[Math.floor(random() * CONDITIONS.length)]!;
    const wet = conditions === 'light rain' || conditions === 'showers' || conditions === 'thunderstorms';
    out.push({
      day,
      label: label(day),
      conditions,
      highC: base + Math.ceil(spread / 2),
      lowC: base - Math.floor(spread / 2),
      precipitationChance: wet ? 50 + Math.round(random() * 50) : Math.round(random() * 30),
      windKph: Math.round(random() * (conditions === 'windy' ? 60 : 25)) + (conditions === 'windy' ? 30 : 0),
    });
  }
  return { city: city.trim(), unit: 'celsius', days: out };
}

/** A one-line summary of the weather now (today's row, mid-afternoon). */
export function currentConditions(city: string): string {
  const today = forecast(city, 1).days[0]!;
  const now = Math.round((today.highC * 2 + today.lowC) / 3);
  return (
    `${city.trim()} now: ${now} °C, ${today.conditions}, wind ${today.windKph} km/h, ` +
    `${today.precipitationChance}% chance of rain. (Demo data: made up, the same every time.)`
  );
}
