import { describe, expect, it } from 'vitest';
import { moveStop, type GridFocus } from './grid-roving.js';

const body = (item: number): GridFocus => ({ header: false, item });
const at = (focus: GridFocus, row: number, shown: number[] = [0, 1, 2, 3], rows = 30) => ({ focus, row, item: focus.item, shown, rows });

describe('the runs grid’s one Tab stop, moved by the keys', () => {
  it('←/→ go along the row’s shown controls, Home/End to its first and last', () => {
    expect(moveStop('ArrowRight', false, at(body(1), 4))).toEqual({ focus: body(2), row: 4 });
    expect(moveStop('ArrowRight', false, at(body(3), 4))).toEqual({ focus: body(3), row: 4 });
    expect(moveStop('ArrowLeft', false, at(body(0), 4))).toEqual({ focus: body(0), row: 4 });
    // The header's Step, Attempts and Errors sort buttons (5–7) are hidden at 900 px: passed over.
    expect(moveStop('ArrowRight', false, at({ header: true, item: 4 }, 0, [0, 1, 2, 3, 4]))).toEqual({ focus: { header: true, item: 4 }, row: 0 });
    expect(moveStop('ArrowLeft', false, at(body(2), 4, [0, 1, 2]))).toEqual({ focus: body(1), row: 4 });
    expect(moveStop('Home', false, at(body(2), 4))).toEqual({ focus: body(0), row: 4 });
    expect(moveStop('End', false, at(body(1), 4))).toEqual({ focus: body(3), row: 4 });
  });

  it('↑/↓ change rows keeping the control, ↑ from the first row reaches the header and ↓ comes back', () => {
    expect(moveStop('ArrowDown', false, at(body(2), 4))).toEqual({ focus: body(2), row: 5 });
    expect(moveStop('ArrowDown', false, at(body(2), 29))).toEqual({ focus: body(2), row: 29 });
    expect(moveStop('ArrowUp', false, at(body(1), 0))).toEqual({ focus: { header: true, item: 1 }, row: 0 });
    expect(moveStop('ArrowUp', false, at({ header: true, item: 1 }, 0))).toBeNull();
    expect(moveStop('ArrowDown', false, at({ header: true, item: 1 }, 0))).toEqual({ focus: body(1), row: 0 });
  });

  it('PageUp/PageDown move ten rows, Ctrl+Home/End to the first and last; other keys are left alone', () => {
    expect(moveStop('PageDown', false, at(body(1), 25))).toEqual({ focus: body(1), row: 29 });
    expect(moveStop('PageUp', false, at(body(1), 25))).toEqual({ focus: body(1), row: 15 });
    expect(moveStop('Home', true, at(body(1), 25))).toEqual({ focus: body(1), row: 0 });
    expect(moveStop('End', true, at(body(1), 2))).toEqual({ focus: body(1), row: 29 });
    expect(moveStop('Enter', false, at(body(1), 2))).toBeNull();
    expect(moveStop('x', false, at(body(1), 2))).toBeNull();
  });
});
