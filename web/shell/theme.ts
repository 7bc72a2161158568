/**
 * Light or dark: the system's choice (`prefers-color-scheme`, done in styles.css) unless the
 * person picked one with the toggle, which is kept in localStorage and set as `data-theme` on
 * the root element.
 */
export type Theme = 'light' | 'dark';

const KEY = 'switchboard.theme';

/** The theme the person picked, if any. */
export function storedTheme(): Theme | undefined {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The theme in effect now: the picked one, else the system's. */
export function effectiveTheme(): Theme {
  return storedTheme() ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
}

/** Shows `theme` and remembers it. */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Not remembered; it still applies to this page.
  }
}

/** Applies a picked theme before the first render, so a dark page does not flash white. */
export function restoreTheme(): void {
  const theme = storedTheme();
  if (theme) document.documentElement.dataset.theme = theme;
}
