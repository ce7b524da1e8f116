export { createReport, Report, PAGE_MARGIN, type TCover, type TReportOptions, type TStat } from "./report";
export type { TCell, TColumn, TTable } from "./table";
export type { TBar, TBarChart, TLineChart, TPoint } from "./charts";
export { DEFAULT_THEME, SEVERITY_COLORS, safeText, themeOf, tint, type TTheme } from "./theme";
export { isPdf } from "./sniff";
