import { customType } from "drizzle-orm/pg-core";

/** Raw bytes (PDFs, ZIP chunks, logos). node-postgres and PGlite both hand back a Buffer/Uint8Array. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
  toDriver: (v) => v,
});
