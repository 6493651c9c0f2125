import { useEffect } from 'react';

/**
 * Tables become stacked cards on phones (styles/responsive.css, below 600 px): each row a card, each cell
 * a line led by its column's name. CSS cannot read a header's text, so this copies it into every
 * body cell's `data-label` (the CSS shows it with `::before`), for every Mantine table on the page,
 * dialogs included, as tables appear or change. Screens keep writing plain `<Table>` markup.
 * A header with no visible text (the row-actions column: ActionsHeader) gives no label; cells that
 * span several columns get none either.
 */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll<HTMLTableElement>('table.mantine-Table-table')) {
    const headRow = table.tHead?.rows[table.tHead.rows.length - 1];
    if (!headRow) continue;
    const labels = Array.from(headRow.cells, (cell) => (cell.querySelector('.pp-visually-hidden') && cell.children.length === 1 ? '' : cell.textContent.trim()));
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        let column = 0;
        for (const cell of row.cells) {
          const label = cell.colSpan === 1 ? (labels[column] ?? '') : '';
          if (label && cell.dataset.label !== label) cell.dataset.label = label;
          else if (!label && cell.dataset.label !== undefined) delete cell.dataset.label;
          column += cell.colSpan;
        }
      }
    }
  }
}

/** Keeps the labels of every table in the document current (at most once a frame). */
export function useTableCardLabels(): void {
  useEffect(() => {
    let frame = 0;
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        labelTableCells(document.body);
      });
    };
    const observer = new MutationObserver(schedule);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    schedule();
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, []);
}
