import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FIRST_ROWS, useRowsInStages } from './use-rows-in-stages.js';

function List({ rows, first }: { rows: readonly number[]; first?: number }) {
  const shown = useRowsInStages(rows, first);
  return (
    <ul>
      {shown.map((n) => (
        <li key={n}>{n}</li>
      ))}
    </ul>
  );
}

const items = (html: string): number => (html.match(/<li>/g) ?? []).length;
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

// The first render (the one a server render shows) is the first stage; the browser journey
// e2e/errors.test.ts watches the rest arrive.
describe('useRowsInStages', () => {
  it('draws only the first rows of a long list in its first render, in order', () => {
    const html = renderToStaticMarkup(<List rows={upTo(100)} />);
    expect(items(html)).toBe(FIRST_ROWS);
    expect(html).toContain(`<li>0</li>`);
    expect(html).toContain(`<li>${FIRST_ROWS - 1}</li>`);
    expect(html).not.toContain(`<li>${FIRST_ROWS}</li>`);
  });

  it('draws a list no longer than the first stage whole', () => {
    expect(items(renderToStaticMarkup(<List rows={upTo(FIRST_ROWS)} />))).toBe(FIRST_ROWS);
    expect(items(renderToStaticMarkup(<List rows={upTo(3)} />))).toBe(3);
    expect(items(renderToStaticMarkup(<List rows={[]} />))).toBe(0);
  });

  it('takes the first stage’s size from the caller', () => {
    expect(items(renderToStaticMarkup(<List rows={upTo(40)} first={4} />))).toBe(4);
  });
});
