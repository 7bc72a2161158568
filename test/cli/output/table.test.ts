import { describe, expect, it } from 'vitest';
import { createStyle } from '../../../src/cli/output/style.js';
import { renderTable, truncate } from '../../../src/cli/output/table.js';

describe('renderTable', () => {
  it('pads columns to the widest cell, right-aligns where asked, trims line ends', () => {
    expect(
      renderTable(
        [
          ['NAME', 'TOOLS', 'NOTE'],
          ['fs', '3', ''],
          ['github', '120', 'slow'],
        ],
        { align: ['left', 'right', 'left'] },
      ),
    ).toEqual(['NAME    TOOLS  NOTE', 'fs          3', 'github    120  slow']);
  });

  it('does not count colour sequences as width', () => {
    const style = createStyle(true);
    const lines = renderTable([
      [style.green('connected'), 'a'],
      ['failed', 'b'],
    ]);
    expect(lines).toEqual(['\u001b[32mconnected\u001b[39m  a', 'failed     b']);
  });

  it('indents, fills missing cells, and cuts the last column to the width', () => {
    expect(
      renderTable([['a', 'a rather long description that does not fit'], ['bb']], {
        indent: 2,
        maxWidth: 20,
      }),
    ).toEqual(['  a   a rather long…', '  bb']);
  });

  it('keeps at least ten columns of the last cell', () => {
    const [line] = renderTable([['x'.repeat(30), 'abcdefghijklmnop']], { maxWidth: 20 });
    expect(line).toBe(`${'x'.repeat(30)}  abcdefghi…`);
  });

  it('renders nothing for no rows', () => {
    expect(renderTable([])).toEqual([]);
  });
});

describe('truncate', () => {
  it('cuts with an ellipsis and leaves short text alone', () => {
    expect(truncate('hello world', 5)).toBe('hell…');
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate(createStyle(true).red('hello world'), 6)).toBe('hello…');
    expect(truncate('hello', 0)).toBe('');
  });
});
