import {
  AppError,
  pinnedRequest,
  ResponseTooLargeError,
  TargetRefusedError,
  vetTarget,
  type TResolver,
} from "@posture/platform";

/** A partner logo is printed on every report page header: 512 KiB is plenty for a PNG or JPEG. */
export const LOGO_MAX_BYTES = 512 * 1024;
const LOGO_TIMEOUT_MS = 5_000;

export type TFetched = { status: number; contentType: string | null; bytes: Buffer };
/** Fetches a URL, reading at most `maxBytes` (more is an error). The one dependency of fetchLogo. */
export type TLogoFetcher = (url: string, o: { maxBytes: number; timeoutMs: number }) => Promise<TFetched>;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

/** The image type from its first bytes; the Content-Type header is not trusted. */
export function sniffImage(b: Buffer): "image/png" | "image/jpeg" | null {
  if (b.length >= PNG.length && b.subarray(0, PNG.length).equals(PNG)) return "image/png";
  if (b.length >= JPEG.length && b.subarray(0, JPEG.length).equals(JPEG)) return "image/jpeg";
  return null;
}

/**
 * Fetches a partner's logo once, when logoUrl is set: https only, size-limited, PNG or JPEG by
 * magic bytes. Every refusal is a 400 naming logoUrl; reports later use the stored bytes only.
 */
export async function fetchLogo(
  rawUrl: string,
  fetcher: TLogoFetcher,
): Promise<{ bytes: Buffer; mime: string }> {
  const refuse = (why: string) =>
    new AppError("invalid_input", `logoUrl ${why}`, { details: [{ path: "logoUrl", message: why }] });
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw refuse("is not a valid URL");
  }
  if (url.protocol !== "https:") throw refuse("must use https");
  let res: TFetched;
  try {
    res = await fetcher(url.toString(), { maxBytes: LOGO_MAX_BYTES, timeoutMs: LOGO_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof TargetRefusedError) throw refuse(`was refused: ${err.message}`);
    if (err instanceof LogoTooLargeError) throw refuse(`is larger than ${LOGO_MAX_BYTES} bytes`);
    throw refuse("could not be fetched");
  }
  if (res.status !== 200) throw refuse(`answered HTTP ${res.status}`);
  const mime = sniffImage(res.bytes);
  if (!mime) throw refuse("is not a PNG or JPEG image");
  return { bytes: res.bytes, mime };
}

export class LogoTooLargeError extends Error {}

/**
 * The production fetcher: the SSRF guard (vetTarget: every resolved address must be public unless
 * private targets are allowed), then the platform's one outbound client (`pinnedRequest`: only the
 * vetted addresses, so a DNS answer that changes after the check is never used; no redirects).
 */
export function guardedFetcher(o: {
  allowPrivateTargets: boolean;
  resolve?: TResolver;
  ca?: string;
}): TLogoFetcher {
  return async (raw, { maxBytes, timeoutMs }) => {
    const target = await vetTarget(raw, {
      allowPrivateTargets: o.allowPrivateTargets,
      resolve: o.resolve,
      timeoutMs,
    });
    try {
      const res = await pinnedRequest(target, {
        method: "GET",
        headers: { accept: "image/png, image/jpeg" },
        timeoutMs,
        maxResponseBytes: maxBytes,
        ...(o.ca ? { ca: o.ca } : {}),
      });
      const type = res.headers["content-type"];
      return { status: res.status, contentType: type ?? null, bytes: res.body };
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw new LogoTooLargeError();
      throw err;
    }
  };
}
