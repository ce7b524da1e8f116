import PDFDocument from "pdfkit";
import { drawBarChart, drawLineChart, type TBarChart, type TLineChart } from "./charts";
import { drawTable, type TTable } from "./table";
import { DEFAULT_THEME, INK, MUTED, RULE, safeText, tint, type TTheme } from "./theme";

export type TReportOptions = {
  /** Document title (PDF metadata and the page header). */
  title: string;
  theme?: TTheme;
  /** Fixed timestamp for reproducible output (tests); defaults to now. */
  createdAt?: Date;
};

export type TCover = {
  /** A short line above the title, in capitals ("Incident response report"). */
  kicker?: string;
  title: string;
  subtitle?: string;
  /** A coloured label under the title (a priority and status). */
  badge?: { text: string; color: string };
  /** Short lines under the title: organization, period, date. */
  lines?: string[];
};

export type TStat = { label: string; value: string; color?: string };

const MARGIN = { top: 64, bottom: 56, left: 50, right: 50 };
const HEADER_BAND = 28;

/**
 * A report being written top to bottom. Every block checks the room left on the page and moves to
 * a new one when needed; page headers, footers and "Page X of Y" are drawn at the end, when the
 * page count is known.
 */
export class Report {
  readonly doc: PDFKit.PDFDocument;
  readonly theme: TTheme;
  private readonly title: string;
  private readonly chunks: Buffer[] = [];
  private readonly done: Promise<Buffer>;
  private hasCover = false;

  constructor(opts: TReportOptions) {
    this.theme = opts.theme ?? DEFAULT_THEME;
    this.title = safeText(opts.title);
    const created = opts.createdAt ?? new Date();
    this.doc = new PDFDocument({
      size: "A4",
      margins: MARGIN,
      bufferPages: true,
      autoFirstPage: false,
      info: {
        Title: this.title,
        Author: safeText(this.theme.brandName),
        Producer: "@posture/pdf",
        CreationDate: created,
      },
    });
    this.doc.on("data", (c: Buffer) => this.chunks.push(c));
    this.done = new Promise((resolve, reject) => {
      this.doc.on("end", () => resolve(Buffer.concat(this.chunks)));
      this.doc.on("error", reject);
    });
    this.doc.font("Helvetica").fontSize(10);
  }

  get contentWidth(): number {
    return this.doc.page.width - MARGIN.left - MARGIN.right;
  }

  get bottom(): number {
    return this.doc.page.height - MARGIN.bottom;
  }

  /** Starts a content page (the first block calls it when no page exists yet). */
  newPage(): this {
    this.doc.addPage();
    this.doc.x = MARGIN.left;
    this.doc.y = MARGIN.top;
    return this;
  }

  /** Moves to a new page unless `height` points still fit on this one. */
  ensureSpace(height: number): this {
    if (!this.hasPage() || this.doc.y + height > this.bottom) this.newPage();
    return this;
  }

  private hasPage(): boolean {
    return this.doc.bufferedPageRange().count > 0;
  }

  cover(c: TCover): this {
    const doc = this.doc;
    doc.addPage();
    this.hasCover = true;
    const { width, height } = doc.page;
    doc.rect(0, 0, width, 210).fill(this.theme.accent);
    let logoBottom = 60;
    if (this.theme.logo) {
      try {
        doc.image(this.theme.logo, MARGIN.left, 48, { fit: [160, 60] });
        logoBottom = 120;
      } catch {
        // An unreadable logo must not cost the report: the brand name stands in for it.
      }
    }
    doc
      .fillColor("#FFFFFF")
      .font("Helvetica-Bold")
      .fontSize(11)
      .text(safeText(this.theme.brandName).toUpperCase(), MARGIN.left, logoBottom + 20, {
        width: this.contentWidth,
        characterSpacing: 1.5,
      });
    if (c.kicker) {
      doc.fillColor(MUTED).font("Helvetica-Bold").fontSize(11);
      doc.text(safeText(c.kicker).toUpperCase(), MARGIN.left, 236, {
        width: this.contentWidth,
        characterSpacing: 1,
      });
    }
    doc.fillColor(INK).font("Helvetica-Bold").fontSize(28);
    doc.text(safeText(c.title), MARGIN.left, 260, { width: this.contentWidth });
    if (c.subtitle) {
      doc.moveDown(0.3).font("Helvetica").fontSize(14).fillColor(MUTED);
      doc.text(safeText(c.subtitle), { width: this.contentWidth });
    }
    if (c.badge) {
      doc.moveDown(0.6);
      const y = doc.y;
      const text = safeText(c.badge.text);
      doc.font("Helvetica-Bold").fontSize(11);
      doc.roundedRect(MARGIN.left, y, doc.widthOfString(text) + 16, 20, 4).fill(c.badge.color);
      doc.fillColor("#FFFFFF").text(text, MARGIN.left + 8, y + 5, { lineBreak: false });
      doc.x = MARGIN.left;
      doc.y = y + 24;
    }
    doc.moveDown(1.5);
    doc.rect(MARGIN.left, doc.y, 60, 3).fill(this.theme.accent);
    doc.moveDown(1);
    doc.font("Helvetica").fontSize(11).fillColor(INK);
    for (const line of c.lines ?? [])
      doc.text(safeText(line), MARGIN.left, doc.y, { width: this.contentWidth });
    const contentY = doc.y + 12;
    doc
      .fontSize(8)
      .fillColor(MUTED)
      .text("Confidential: prepared for the organization named above.", MARGIN.left, height - 90, {
        width: this.contentWidth,
      });
    // What follows on the cover (facts, a summary) continues under the lines, not under the note.
    doc.fillColor(INK).font("Helvetica").fontSize(10);
    doc.x = MARGIN.left;
    doc.y = contentY;
    return this;
  }

  heading(text: string, level: 1 | 2 = 1): this {
    const size = level === 1 ? 16 : 12;
    // Kept with what follows: room for the heading and a table's header and first row (or two
    // lines of text), so a heading never ends a page on its own.
    this.ensureSpace(size * 3.5 + 48);
    const doc = this.doc;
    if (doc.y > MARGIN.top + 1) doc.moveDown(level === 1 ? 0.8 : 0.5);
    doc
      .font("Helvetica-Bold")
      .fontSize(size)
      .fillColor(level === 1 ? this.theme.accent : INK);
    doc.text(safeText(text), MARGIN.left, doc.y, { width: this.contentWidth });
    if (level === 1) {
      doc.moveTo(MARGIN.left, doc.y + 2).lineTo(MARGIN.left + this.contentWidth, doc.y + 2);
      doc.lineWidth(0.5).strokeColor(RULE).stroke();
      doc.moveDown(0.5);
    } else doc.moveDown(0.25);
    doc.font("Helvetica").fontSize(10).fillColor(INK);
    return this;
  }

  paragraph(text: string, o: { muted?: boolean; size?: number } = {}): this {
    const doc = this.doc;
    this.ensureSpace(0);
    doc
      .font("Helvetica")
      .fontSize(o.size ?? 10)
      .fillColor(o.muted ? MUTED : INK);
    const t = safeText(text);
    this.ensureSpace(Math.min(doc.heightOfString(t, { width: this.contentWidth }), 60));
    doc.text(t, MARGIN.left, doc.y, { width: this.contentWidth, lineGap: 2 });
    doc.moveDown(0.5).fillColor(INK);
    return this;
  }

  bullets(items: string[]): this {
    const doc = this.doc;
    this.ensureSpace(0);
    doc.font("Helvetica").fontSize(10).fillColor(INK);
    for (const item of items) {
      const t = safeText(item);
      this.ensureSpace(doc.heightOfString(t, { width: this.contentWidth - 14 }) + 4);
      const y = doc.y;
      doc.circle(MARGIN.left + 4, y + 5, 1.8).fill(this.theme.accent);
      doc.fillColor(INK).text(t, MARGIN.left + 14, y, { width: this.contentWidth - 14, lineGap: 1 });
      doc.moveDown(0.2);
    }
    doc.x = MARGIN.left;
    doc.moveDown(0.3);
    return this;
  }

  /** Label and value pairs, one per line (the facts of a cover, a summary). */
  keyValues(rows: ReadonlyArray<readonly [string, string]>): this {
    const doc = this.doc;
    const labelWidth = 130;
    for (const [k, v] of rows) {
      const value = safeText(v);
      doc.font("Helvetica-Bold").fontSize(10);
      this.ensureSpace(doc.heightOfString(value, { width: this.contentWidth - labelWidth - 10 }) + 4);
      const y = doc.y;
      doc.fillColor(MUTED).font("Helvetica").text(safeText(k), MARGIN.left, y, { width: labelWidth });
      doc
        .fillColor(INK)
        .font("Helvetica-Bold")
        .text(value, MARGIN.left + labelWidth + 10, y, { width: this.contentWidth - labelWidth - 10 });
      doc.x = MARGIN.left;
      doc.y = Math.max(doc.y, y + 14) + 3;
    }
    doc.font("Helvetica").fillColor(INK).moveDown(0.3);
    return this;
  }

  /** A row of large figures in tinted boxes (score, grade, counts). */
  stats(items: TStat[]): this {
    if (items.length === 0) return this;
    const doc = this.doc;
    const h = 58;
    this.ensureSpace(h + 12);
    const gap = 10;
    const w = (this.contentWidth - gap * (items.length - 1)) / items.length;
    const y = doc.y;
    items.forEach((s, i) => {
      const x = MARGIN.left + i * (w + gap);
      doc.roundedRect(x, y, w, h, 4).fill(tint(this.theme.accent, 0.9));
      doc
        .font("Helvetica-Bold")
        .fontSize(20)
        .fillColor(s.color ?? this.theme.accent);
      doc.text(safeText(s.value), x + 10, y + 10, { width: w - 20, lineBreak: false, ellipsis: true });
      doc.font("Helvetica").fontSize(8.5).fillColor(MUTED);
      doc.text(safeText(s.label), x + 10, y + 38, { width: w - 20, lineBreak: false, ellipsis: true });
    });
    doc.x = MARGIN.left;
    doc.y = y + h + 12;
    doc.fillColor(INK);
    return this;
  }

  table(t: TTable): this {
    drawTable(this, t);
    return this;
  }

  barChart(c: TBarChart): this {
    drawBarChart(this, c);
    return this;
  }

  lineChart(c: TLineChart): this {
    drawLineChart(this, c);
    return this;
  }

  /** Draws headers, footers and page numbers, then returns the whole file. */
  async toBuffer(): Promise<Buffer> {
    if (this.doc.bufferedPageRange().count === 0) this.newPage();
    this.decoratePages();
    this.doc.end();
    return this.done;
  }

  private decoratePages(): void {
    const doc = this.doc;
    const range = doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      // Drawing in the margins must not trigger pdfkit's automatic page break.
      const saved = doc.page.margins;
      doc.page.margins = { top: 0, bottom: 0, left: 0, right: 0 };
      const { width, height } = doc.page;
      const isCover = this.hasCover && i === range.start;
      if (!isCover) {
        doc.rect(0, 0, width, 4).fill(this.theme.accent);
        doc.font("Helvetica-Bold").fontSize(8).fillColor(this.theme.accent);
        doc.text(safeText(this.theme.brandName), MARGIN.left, HEADER_BAND - 8, {
          width: this.contentWidth / 2,
          lineBreak: false,
          ellipsis: true,
        });
        doc.font("Helvetica").fillColor(MUTED);
        doc.text(this.title, MARGIN.left + this.contentWidth / 2, HEADER_BAND - 8, {
          width: this.contentWidth / 2,
          align: "right",
          lineBreak: false,
          ellipsis: true,
        });
      }
      doc.moveTo(MARGIN.left, height - 40).lineTo(width - MARGIN.right, height - 40);
      doc.lineWidth(0.5).strokeColor(RULE).stroke();
      doc.font("Helvetica").fontSize(8).fillColor(MUTED);
      doc.text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN.left, height - 32, {
        width: this.contentWidth,
        align: "right",
        lineBreak: false,
      });
      doc.page.margins = saved;
    }
  }
}

export function createReport(opts: TReportOptions): Report {
  return new Report(opts);
}

export const PAGE_MARGIN = MARGIN;
