import PDFDocument from "pdfkit";

// A small layout kit for A4 reports: cover, headings, paragraphs, key–value blocks, tables that
// break across pages (repeating their header), and "Page n of m" footers. Kept free of incident
// specifics so it can move onto the shared PDF toolkit.

export type TDoc = InstanceType<typeof PDFDocument>;

export const PAGE = { margin: 56, footer: 36 } as const;
const INK = "#1f2933";
const MUTED = "#616e7c";
const RULE = "#cbd2d9";
export const SEVERITY_COLOURS: Record<string, string> = {
  CRITICAL: "#b42318",
  HIGH: "#d9480f",
  MEDIUM: "#b08800",
  LOW: "#4a5568",
};

/**
 * The standard fonts encode WinAnsi only: arrows and typographic marks become their ASCII
 * look-alikes, anything else outside Latin-1 a "?", rather than garbage glyphs.
 */
export function winAnsi(text: string): string {
  return text
    .replace(/→/g, "->")
    .replace(/←/g, "<-")
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/[–—]/g, "-")
    .replace(/[^\u0000-\u00ff€…•]/g, "?");
}

export function createDoc(meta: { title: string; author: string }): TDoc {
  return new PDFDocument({
    size: "A4",
    margins: { top: PAGE.margin, bottom: PAGE.margin, left: PAGE.margin, right: PAGE.margin },
    bufferPages: true,
    info: { Title: meta.title, Author: meta.author, Creator: "Security Posture API" },
  });
}

const width = (doc: TDoc) => doc.page.width - PAGE.margin * 2;
const bottom = (doc: TDoc) => doc.page.height - PAGE.margin - PAGE.footer;

/** Starts a new page when fewer than `needed` points remain. */
export function ensureSpace(doc: TDoc, needed: number): void {
  if (doc.y + needed > bottom(doc)) doc.addPage();
}

export function cover(
  doc: TDoc,
  c: {
    kicker: string;
    title: string;
    badge?: { text: string; colour: string };
    facts: Array<[string, string]>;
  },
): void {
  doc.rect(0, 0, doc.page.width, 10).fill(c.badge?.colour ?? INK);
  doc.y = 150;
  doc.fillColor(MUTED).font("Helvetica").fontSize(12).text(c.kicker.toUpperCase(), PAGE.margin, doc.y);
  doc.moveDown(0.6);
  doc
    .fillColor(INK)
    .font("Helvetica-Bold")
    .fontSize(26)
    .text(winAnsi(c.title), { width: width(doc) });
  if (c.badge) {
    doc.moveDown(0.6);
    const y = doc.y;
    doc.font("Helvetica-Bold").fontSize(11);
    const w = doc.widthOfString(c.badge.text) + 16;
    doc.roundedRect(PAGE.margin, y, w, 20, 4).fill(c.badge.colour);
    doc.fillColor("#ffffff").text(c.badge.text, PAGE.margin + 8, y + 5);
    doc.y = y + 30;
  }
  doc.moveDown(1.5);
  keyValues(doc, c.facts);
}

export function heading(doc: TDoc, text: string): void {
  ensureSpace(doc, 60);
  doc.moveDown(0.8);
  doc.fillColor(INK).font("Helvetica-Bold").fontSize(15).text(text, PAGE.margin, doc.y);
  const y = doc.y + 3;
  doc
    .moveTo(PAGE.margin, y)
    .lineTo(PAGE.margin + width(doc), y)
    .lineWidth(0.7)
    .strokeColor(RULE)
    .stroke();
  doc.y = y + 8;
}

export function subheading(doc: TDoc, text: string): void {
  ensureSpace(doc, 40);
  doc.moveDown(0.4);
  doc.fillColor(INK).font("Helvetica-Bold").fontSize(11).text(text, PAGE.margin, doc.y);
  doc.moveDown(0.2);
}

export function paragraph(doc: TDoc, text: string, o: { muted?: boolean } = {}): void {
  ensureSpace(doc, 30);
  doc
    .fillColor(o.muted ? MUTED : INK)
    .font("Helvetica")
    .fontSize(10)
    .text(winAnsi(text), PAGE.margin, doc.y, { width: width(doc), lineGap: 2 });
  doc.moveDown(0.5);
}

export function keyValues(doc: TDoc, rows: Array<[string, string]>): void {
  for (const [k, v] of rows) {
    ensureSpace(doc, 18);
    const y = doc.y;
    doc.fillColor(MUTED).font("Helvetica").fontSize(10).text(k, PAGE.margin, y, { width: 130 });
    doc
      .fillColor(INK)
      .font("Helvetica-Bold")
      .fontSize(10)
      .text(winAnsi(v), PAGE.margin + 140, y, { width: width(doc) - 140 });
    doc.y = Math.max(doc.y, y + 14) + 3;
  }
}

export type TColumn = { header: string; width: number; colour?: (value: string) => string | undefined };

/**
 * A table with proportional column widths; rows wrap, and a row that does not fit starts a new
 * page with the header repeated.
 */
export function table(doc: TDoc, columns: TColumn[], input: string[][]): void {
  const rows = input.map((r) => r.map(winAnsi));
  const total = columns.reduce((s, c) => s + c.width, 0);
  const widths = columns.map((c) => (c.width / total) * width(doc));
  const pad = 4;
  const drawHeader = () => {
    const y = doc.y;
    doc.rect(PAGE.margin, y, width(doc), 18).fill("#eef2f6");
    let x = PAGE.margin;
    doc.font("Helvetica-Bold").fontSize(8.5).fillColor(INK);
    columns.forEach((c, i) => {
      doc.text(c.header, x + pad, y + 5, { width: (widths[i] ?? 0) - pad * 2, lineBreak: false });
      x += widths[i] ?? 0;
    });
    doc.y = y + 20;
  };
  ensureSpace(doc, 42);
  drawHeader();
  doc.font("Helvetica").fontSize(8.5);
  for (const row of rows) {
    const height =
      Math.max(...row.map((cell, i) => doc.heightOfString(cell, { width: (widths[i] ?? 0) - pad * 2 }))) +
      pad * 2;
    if (doc.y + height > bottom(doc)) {
      doc.addPage();
      drawHeader();
      doc.font("Helvetica").fontSize(8.5);
    }
    const y = doc.y;
    let x = PAGE.margin;
    row.forEach((cell, i) => {
      const colour = columns[i]?.colour?.(cell);
      doc
        .font(colour ? "Helvetica-Bold" : "Helvetica")
        .fillColor(colour ?? INK)
        .text(cell, x + pad, y + pad, { width: (widths[i] ?? 0) - pad * 2 });
      x += widths[i] ?? 0;
    });
    doc
      .moveTo(PAGE.margin, y + height)
      .lineTo(PAGE.margin + width(doc), y + height)
      .lineWidth(0.4)
      .strokeColor(RULE)
      .stroke();
    doc.y = y + height;
  }
  doc.moveDown(0.6);
}

/** "Page n of m" and a running title on every page but the cover. */
export function pageNumbers(doc: TDoc, runningTitle: string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const y = doc.page.height - PAGE.margin + 10;
    // Writing in the bottom margin must not trigger pdfkit's automatic page break.
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font("Helvetica").fontSize(8).fillColor(MUTED);
    if (i > range.start)
      doc.text(winAnsi(runningTitle), PAGE.margin, y, { width: width(doc) / 1.5, lineBreak: false });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, PAGE.margin, y, {
      width: width(doc),
      align: "right",
      lineBreak: false,
    });
    doc.page.margins.bottom = saved;
  }
}

export function toBuffer(doc: TDoc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
    doc.end();
  });
}
