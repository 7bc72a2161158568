import { useNow } from '../state/use-now.js';

/** How long until an item is declined for want of an answer, ticking each second. */
export function Deadline(props: { readonly deadline: string }) {
  const now = useNow(1000);
  const left = Math.max(0, Math.floor((Date.parse(props.deadline) - now) / 1000));
  const text =
    left === 0 ? 'expiring now' : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
  return (
    <span class={left < 30 ? 'deadline deadline-near' : 'deadline'} title={`Declined at ${props.deadline}`}>
      <span class="sr-only">Declined automatically, </span>
      {text}
    </span>
  );
}
