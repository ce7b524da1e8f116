import type { Server } from "node:http";
import { Server as NetServer, type Socket } from "node:net";

/** How long a keep-alive connection may sit idle during a drain before it is closed. */
const IDLE_GRACE_MS = 250;

type TConnection = { inFlight: number; idleSince: number };

/**
 * Graceful drain for keep-alive clients. On `drain()` the listener stops accepting, every
 * response from then on carries `Connection: close` (so a client finishes its request and then
 * reconnects elsewhere), and a connection is closed only once it has been idle for a moment.
 *
 * Node's own `server.close()` closes idle connections at once; a keep-alive client whose next
 * request is already on the wire at that instant gets a reset instead of an answer. Waiting for
 * the `Connection: close` response (or a short idle grace) means no request is ever cut off.
 */
export function trackConnections(server: Server): { drain: () => Promise<void> } {
  const connections = new Map<Socket, TConnection>();
  let draining = false;

  server.on("connection", (socket: Socket) => {
    connections.set(socket, { inFlight: 0, idleSince: Date.now() });
    socket.on("close", () => connections.delete(socket));
  });
  // Runs before the app's own listener, so the header is set before any handler can respond.
  server.prependListener("request", (req, res) => {
    const c = connections.get(req.socket);
    if (c) c.inFlight += 1;
    if (draining) res.setHeader("Connection", "close");
    res.on("close", () => {
      if (!c) return;
      c.inFlight -= 1;
      c.idleSince = Date.now();
    });
  });

  const drain = () =>
    new Promise<void>((resolve) => {
      draining = true;
      const sweep = setInterval(() => {
        const now = Date.now();
        for (const [socket, c] of connections) {
          if (c.inFlight === 0 && now - c.idleSince >= IDLE_GRACE_MS) socket.end();
        }
      }, 50);
      // net.Server's close: stop listening and wait for the connections, without http.Server's
      // immediate idle sweep.
      NetServer.prototype.close.call(server, () => {
        clearInterval(sweep);
        resolve();
      });
    });

  return { drain };
}
