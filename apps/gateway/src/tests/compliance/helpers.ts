import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TTestGateway } from "../../testing";
import { freshIp } from "../helpers";

export type TBinaryResponse = { status: number; headers: Headers; bytes: Buffer; json: unknown };

/** A request whose body is kept as bytes (PDF, ZIP); JSON bodies (errors) are parsed as well. */
export async function fetchBytes(
  gw: TTestGateway,
  path: string,
  o: { key?: string; cookie?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<TBinaryResponse> {
  const headers: Record<string, string> = { "x-forwarded-for": o.ip ?? freshIp(), ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.cookie) headers.cookie = o.cookie;
  const res = await fetch(`${gw.url}${path}`, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  if ((res.headers.get("content-type") ?? "").includes("json")) json = JSON.parse(bytes.toString("utf8"));
  return { status: res.status, headers: res.headers, bytes, json };
}

export function tmpFile(name: string, bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), "compliance-test-"));
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

/** qpdf --check must pass; returns the text (pdftotext -layout) and the page count. */
export function readPdf(bytes: Buffer): { text: string; pages: number } {
  const file = tmpFile("r.pdf", bytes);
  execFileSync("qpdf", ["--check", file]);
  const text = execFileSync("pdftotext", ["-layout", file, "-"]).toString();
  return { text, pages: (text.match(/\f/g) ?? []).length };
}
