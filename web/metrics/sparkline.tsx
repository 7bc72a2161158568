import { sparkPath } from './series.js';

/**
 * A small SVG line chart: one or two series on one scale, no axes — a shape to glance at,
 * with its current value beside it in text (the chart itself is `aria-hidden`; the label and
 * value are what a screen reader reads).
 */
export function Sparkline(props: {
  readonly label: string;
  readonly value: string;
  readonly series: readonly (readonly (number | null)[])[];
  readonly max: number;
  readonly testId: string;
  readonly width?: number;
  readonly height?: number;
}) {
  const width = props.width ?? 120;
  const height = props.height ?? 28;
  return (
    <div class="spark" data-testid={props.testId}>
      <span class="spark-label">{props.label}</span>
      <svg
        class="spark-chart"
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        aria-hidden="true"
        preserveAspectRatio="none"
      >
        {props.series.map((values, i) => (
          <path
            key={i}
            class={`spark-line spark-line-${i}`}
            d={sparkPath(values, width, height - 2, props.max)}
            transform="translate(0 1)"
          />
        ))}
      </svg>
      <span class="spark-value" data-testid={`${props.testId}-value`}>
        {props.value}
      </span>
    </div>
  );
}
