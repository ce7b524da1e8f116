/** Whether bytes start like a PDF file (what a download test or a storage check wants to know). */
export function isPdf(b: Uint8Array): boolean {
  return b.length > 5 && Buffer.from(b.subarray(0, 5)).toString("latin1") === "%PDF-";
}
