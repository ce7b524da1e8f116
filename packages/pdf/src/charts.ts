import type { Report } from "./report";
import { INK, MUTED, RULE, safeText, tint } from "./theme";

export type TBar = { label: string; value: number; color?: string };
/** Horizontal bars: one per label, scaled to `max` (default: the largest value). */
export type TBarChart = { title?: string; bars: TBar[]; max?: number; unit?: string };

export type TPoint = { label: string; value: number };
/** A line over time, e.g. the posture score per day; `min`/`max` fix the y axis (0–100 for scores). */
export type TLineChart = { title?: string; points: TPoint[]; min?: number; max?: number; height?: number };

function chartTitle(r: Report, title: string | undefined): void {
  if (!title) return;
  r.doc.font("Helvetica-Bold").fontSize(10).fillColor(INK);
  r.doc.text(safeText(title), r.doc.page.margins.left, r.doc.y, { width: r.contentWidth });
  r.doc.moveDown(0.3);
}

export function drawBarChart(r: Report, c: TBarChart): void {
  const doc = r.doc;
  const barH = 14;
  const gap = 6;
  r.ensureSpace(Math.min(c.bars.length, 6) * (barH + gap) + 24);
  chartTitle(r, c.title);
  const left = doc.page.margins.left;
  const labelW = r.contentWidth * 0.3;
  const valueW = 50;
  const trackW = r.contentWidth - labelW - valueW;
  const max = c.max ?? Math.max(1, ...c.bars.map((b) => b.value));
  for (const b of c.bars) {
    r.ensureSpace(barH + gap);
    const y = doc.y;
    doc.font("Helvetica").fontSize(9).fillColor(INK);
    doc.text(safeText(b.label), left, y + 3, { width: labelW - 8, lineBreak: false, ellipsis: true });
    doc.rect(left + labelW, y, trackW, barH).fill(tint(r.theme.accent, 0.88));
    const w = Math.max(0, Math.min(1, b.value / max)) * trackW;
    if (w > 0) doc.rect(left + labelW, y, w, barH).fill(b.color ?? r.theme.accent);
    doc.fillColor(MUTED).text(`${b.value}${c.unit ?? ""}`, left + labelW + trackW + 6, y + 3, {
      width: valueW - 6,
      lineBreak: false,
    });
    doc.x = left;
    doc.y = y + barH + gap;
  }
  doc.moveDown(0.5).fillColor(INK);
}

export function drawLineChart(r: Report, c: TLineChart): void {
  const doc = r.doc;
  const h = c.height ?? 150;
  r.ensureSpace(h + 50);
  chartTitle(r, c.title);
  const left = doc.page.margins.left;
  const axisW = 28;
  const x0 = left + axisW;
  const w = r.contentWidth - axisW;
  const y0 = doc.y + 4;
  const values = c.points.map((p) => p.value);
  const min = c.min ?? Math.min(0, ...values);
  const max = c.max ?? Math.max(min + 1, ...values);
  const yOf = (v: number) => y0 + h - ((v - min) / (max - min || 1)) * h;

  doc.font("Helvetica").fontSize(7.5);
  for (let i = 0; i <= 4; i++) {
    const v = min + ((max - min) * i) / 4;
    const y = yOf(v);
    doc
      .moveTo(x0, y)
      .lineTo(x0 + w, y)
      .lineWidth(0.4)
      .strokeColor(RULE)
      .stroke();
    doc.fillColor(MUTED).text(String(Math.round(v)), left, y - 3, { width: axisW - 4, align: "right" });
  }
  if (c.points.length === 0) {
    doc
      .fillColor(MUTED)
      .fontSize(9)
      .text("No data in this period.", x0, y0 + h / 2 - 5, { width: w, align: "center" });
  } else {
    const xOf = (i: number) => (c.points.length === 1 ? x0 + w / 2 : x0 + (i / (c.points.length - 1)) * w);
    doc.save();
    c.points.forEach((p, i) =>
      i === 0 ? doc.moveTo(xOf(i), yOf(p.value)) : doc.lineTo(xOf(i), yOf(p.value)),
    );
    doc.lineWidth(1.6).strokeColor(r.theme.accent).stroke();
    doc.restore();
    if (c.points.length <= 40)
      c.points.forEach((p, i) => doc.circle(xOf(i), yOf(p.value), 2).fill(r.theme.accent));
    // At most ~6 x labels, always the first and the last.
    const step = Math.max(1, Math.ceil(c.points.length / 6));
    doc.fillColor(MUTED).fontSize(7.5);
    c.points.forEach((p, i) => {
      if (i % step !== 0 && i !== c.points.length - 1) return;
      if (i !== c.points.length - 1 && c.points.length - 1 - i < step * 0.75) return;
      doc.text(safeText(p.label), xOf(i) - 30, y0 + h + 7, { width: 60, align: "center", lineBreak: false });
    });
  }
  doc.x = left;
  doc.y = y0 + h + 20;
  doc.fillColor(INK).fontSize(10);
}
