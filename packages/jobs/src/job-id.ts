// BullMQ refuses custom job ids that contain ":" (it builds Redis keys from them) or that are
// integers (it numbers its own jobs). Callers' ids are natural keys such as `scan:<connector>:<day>`,
// so they are escaped reversibly on the way in and restored before a handler sees them.

const INTEGER_MARK = "%I";

export function encodeJobId(id: string): string {
  const escaped = id.replace(/%/g, "%25").replace(/:/g, "%3A");
  // "%" never survives escaping unpaired, so the mark cannot collide with a caller's id.
  return /^\d+$/.test(escaped) ? `${INTEGER_MARK}${escaped}` : escaped;
}

export function decodeJobId(id: string): string {
  const unmarked = id.startsWith(INTEGER_MARK) ? id.slice(INTEGER_MARK.length) : id;
  return unmarked.replace(/%(25|3A)/g, (_, code: string) => (code === "25" ? "%" : ":"));
}
