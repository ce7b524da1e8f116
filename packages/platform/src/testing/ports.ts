import { createServer, type AddressInfo } from "node:net";

/** A loopback port nothing listens on now: bound once, then closed (free to listen on, or to be refused at). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
