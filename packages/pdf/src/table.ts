import type { Report } from "./report";
import { INK, RULE, safeText, ZEBRA } from "./theme";

export type TColumn = {
  header: string;
  /** Share of the content width; the shares are normalised, so any positive numbers work. */
  width?: number;
  align?: "left" | "right" | "center";
};

/** A cell is text, or text with its own colour (a severity, a status). */
export type TCell = string | number | { text: string; color?: string; bold?: boolean };

export type TTable = {
  columns: TColumn[];
  rows: TCell[][];
  /** Shown in place of the rows when there are none. */
  empty?: string;
  fontSize?: number;
};

const PAD_X = 5;
const PAD_Y = 4;

function cellText(c: TCell | undefined): { text: string; color?: string; bold?: boolean } {
  if (c === undefined) return { text: "" };
  if (typeof c === "string" || typeof c === "number") return { text: safeText(String(c)) };
  return { ...c, text: safeText(c.text) };
}

/**
 * Draws a table that breaks across pages: a row never splits, and the header row is repeated at
 * the top of every page the table continues on.
 */
export function drawTable(r: Report, t: TTable): void {
  const doc = r.doc;
  const size = t.fontSize ?? 9;
  r.ensureSpace(0);
  const left = doc.page.margins.left;
  const total = t.columns.reduce((s, c) => s + (c.width ?? 1), 0);
  const widths = t.columns.map((c) => ((c.width ?? 1) / total) * r.contentWidth);

  const rowHeight = (cells: Array<{ text: string; bold?: boolean }>) =>
    Math.max(
      ...cells.map((c, i) => {
        doc.font(c.bold ? "Helvetica-Bold" : "Helvetica").fontSize(size);
        return doc.heightOfString(c.text || " ", { width: (widths[i] ?? 0) - 2 * PAD_X });
      }),
    ) +
    2 * PAD_Y;

  const drawRow = (
    cells: Array<{ text: string; color?: string; bold?: boolean }>,
    header: boolean,
    zebra: boolean,
  ) => {
    const h = rowHeight(cells);
    const y = doc.y;
    if (header) doc.rect(left, y, r.contentWidth, h).fill(r.theme.accent);
    else if (zebra) doc.rect(left, y, r.contentWidth, h).fill(ZEBRA);
    let x = left;
    cells.forEach((c, i) => {
      const w = widths[i] ?? 0;
      doc
        .font(header || c.bold ? "Helvetica-Bold" : "Helvetica")
        .fontSize(size)
        .fillColor(header ? "#FFFFFF" : (c.color ?? INK));
      doc.text(c.text, x + PAD_X, y + PAD_Y, { width: w - 2 * PAD_X, align: t.columns[i]?.align ?? "left" });
      x += w;
    });
    doc
      .moveTo(left, y + h)
      .lineTo(left + r.contentWidth, y + h)
      .lineWidth(0.4)
      .strokeColor(RULE)
      .stroke();
    doc.x = left;
    doc.y = y + h;
  };

  const header = t.columns.map((c) => ({ text: safeText(c.header), bold: true }));
  const headerH = rowHeight(header);
  const firstRow = t.rows[0] ? rowHeight(t.columns.map((_, i) => cellText(t.rows[0]?.[i]))) : 20;
  // The header never sits alone at the foot of a page.
  r.ensureSpace(headerH + firstRow);
  drawRow(header, true, false);

  if (t.rows.length === 0) {
    doc.font("Helvetica-Oblique").fontSize(size).fillColor(INK);
    doc.text(safeText(t.empty ?? "None."), left + PAD_X, doc.y + PAD_Y, {
      width: r.contentWidth - 2 * PAD_X,
    });
    doc.moveDown(0.5);
  }
  t.rows.forEach((row, idx) => {
    const cells = t.columns.map((_, i) => cellText(row[i]));
    const h = rowHeight(cells);
    if (doc.y + h > r.bottom) {
      r.newPage();
      drawRow(header, true, false);
    }
    drawRow(cells, false, idx % 2 === 1);
  });
  doc.x = left;
  doc.moveDown(0.6);
  doc.font("Helvetica").fontSize(10).fillColor(INK);
}
