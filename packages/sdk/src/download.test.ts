import { describe, expect, it } from "vitest";
import { json, useScriptedServer } from "./testing/scripted-server";

const { state, client } = useScriptedServer();

describe("downloads", () => {
  it("returns the body as a web stream that arrives before the server has finished", async () => {
    let finish: () => void = () => {};
    state.fallback = (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-disposition": 'attachment; filename="incident-1.pdf"',
      });
      res.write("%PDF-1.7\n");
      finish = () => res.end("%%EOF\n");
    };
    const file = await client().download("/incidents/{id}/export", { params: { path: { id: "i1" } } });
    expect(file).toMatchObject({ contentType: "application/pdf", filename: "incident-1.pdf" });
    expect(file.stream).toBeInstanceOf(ReadableStream);
    const reader = file.stream.getReader();
    // The first chunk is readable while the response is still open: nothing was buffered.
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("%PDF-1.7\n");
    finish();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(rest).toBe("%%EOF\n");
  });

  it("throws ApiError for an error answer instead of streaming it", async () => {
    state.fallback = (_req, res) => json(res, 410, { error: "expired", message: "The package expired" });
    const err = await client()
      .download("/compliance/evidence/{jobId}", { params: { path: { jobId: "j" } } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 410, code: "expired" });
  });
});
