import { inflateRawSync } from "node:zlib";

/**
 * A minimal reader of ZIP archives (PKWARE APPNOTE 6.3.x): the central directory, stored and
 * deflated entries, ZIP64 sizes and offsets. Enough for the evidence packages archiver writes,
 * without a dependency, so `evidence:verify` runs anywhere Node runs.
 */
export type TZipEntry = {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  offset: number;
};

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

export class ZipFormatError extends Error {}

function findEocd(buf: Buffer): number {
  // The end record is 22 bytes plus a comment of at most 65,535.
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--) {
    if (buf.readUInt32LE(i) === EOCD) return i;
  }
  throw new ZipFormatError("not a ZIP archive (no end of central directory)");
}

const u64 = (buf: Buffer, at: number) => Number(buf.readBigUInt64LE(at));

export function zipEntries(buf: Buffer): TZipEntry[] {
  const eocd = findEocd(buf);
  let count = buf.readUInt16LE(eocd + 10);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  if (cdOffset === MAX32 || count === 0xffff) {
    const loc = eocd - 20;
    if (loc < 0 || buf.readUInt32LE(loc) !== ZIP64_LOCATOR) throw new ZipFormatError("ZIP64 locator missing");
    const z = u64(buf, loc + 8);
    if (buf.readUInt32LE(z) !== ZIP64_EOCD) throw new ZipFormatError("ZIP64 end record missing");
    count = u64(buf, z + 32);
    cdOffset = u64(buf, z + 48);
  }
  const entries: TZipEntry[] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== CENTRAL) {
      throw new ZipFormatError("damaged central directory");
    }
    const method = buf.readUInt16LE(at + 10);
    let compressedSize = buf.readUInt32LE(at + 20);
    let size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    let offset = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString("utf8");
    // ZIP64 extended information (header id 0x0001): the 64-bit values of the fields set to 0xFFFFFFFF, in order.
    let x = at + 46 + nameLen;
    const xEnd = x + extraLen;
    while (x + 4 <= xEnd) {
      const id = buf.readUInt16LE(x);
      const len = buf.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let p = x + 4;
        if (size === MAX32) {
          size = u64(buf, p);
          p += 8;
        }
        if (compressedSize === MAX32) {
          compressedSize = u64(buf, p);
          p += 8;
        }
        if (offset === MAX32) offset = u64(buf, p);
      }
      x += 4 + len;
    }
    entries.push({ name, method, compressedSize, size, offset });
    at = xEnd + commentLen;
  }
  return entries;
}

/** An entry's bytes, decompressed. */
export function zipRead(buf: Buffer, e: TZipEntry): Buffer {
  if (e.offset + 30 > buf.length || buf.readUInt32LE(e.offset) !== LOCAL) {
    throw new ZipFormatError(`damaged local header of ${e.name}`);
  }
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  if (data.length !== e.compressedSize) throw new ZipFormatError(`truncated entry ${e.name}`);
  if (e.method === 0) return Buffer.from(data);
  if (e.method === 8) return inflateRawSync(data);
  throw new ZipFormatError(`unsupported compression method ${e.method} for ${e.name}`);
}
