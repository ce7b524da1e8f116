#!/usr/bin/env node
// Regenerates packages/fakes/src/vendor/github-rest-extract.json: the operations the
// GitHub connector makes, cut out of GitHub's official REST description as the npm package
// @octokit/openapi publishes it (generated/api.github.com.json), with only what the fake checks
// requests and responses against: each operation's parameters, request body and response schemas,
// and the component schemas they reach (structure only: descriptions and examples dropped).
//
//   cd /tmp && npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
//   node tooling/vendor-apis/extract-github.mjs /tmp/package
//
// The installation permission of each operation is not in the description (its `x-github` says
// only whether GitHub Apps may call it): it is GitHub's own table, src/github-apps/data/
// fpt-2022-11-28/server-to-server-permissions.json of github/docs ("Permissions required for
// GitHub Apps"), copied below for the operations used.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../packages/fakes/src/vendor/github-rest-extract.json",
);

/**
 * The operations used, with the installation permission each needs. `auth: "app"`: called with the
 * app's JWT, not an installation token. `anyOf`: any one of the permissions suffices. `fields`:
 * a permission that only widens the answer (GET /orgs/{org} shows the settings to owners only).
 */
export const OPERATIONS = [
  { method: "post", path: "/app/installations/{installation_id}/access_tokens", auth: "app", anyOf: [] },
  {
    method: "get",
    path: "/orgs/{org}",
    anyOf: [],
    fields: { organization_administration: "read" },
  },
  { method: "get", path: "/orgs/{org}/repos", anyOf: [{ metadata: "read" }] },
  { method: "get", path: "/orgs/{org}/members", anyOf: [{ members: "read" }] },
  { method: "get", path: "/orgs/{org}/outside_collaborators", anyOf: [{ members: "read" }] },
  { method: "get", path: "/orgs/{org}/teams", anyOf: [{ members: "read" }] },
  { method: "get", path: "/repos/{owner}/{repo}/collaborators", anyOf: [{ metadata: "read" }] },
  { method: "get", path: "/repos/{owner}/{repo}/keys", anyOf: [{ administration: "read" }] },
  { method: "get", path: "/orgs/{org}/installations", anyOf: [{ organization_administration: "read" }] },
  {
    method: "get",
    path: "/orgs/{org}/actions/permissions",
    anyOf: [{ organization_administration: "read" }],
  },
  {
    method: "get",
    path: "/orgs/{org}/copilot/billing/seats",
    anyOf: [{ organization_administration: "read" }, { organization_copilot_seat_management: "read" }],
  },
  // Remediation's writes (packages/connectors/src/github/write.ts) and the reads of their pre-images.
  { method: "get", path: "/repos/{owner}/{repo}", anyOf: [{ metadata: "read" }] },
  { method: "patch", path: "/repos/{owner}/{repo}", anyOf: [{ administration: "write" }] },
  {
    method: "get",
    path: "/repos/{owner}/{repo}/collaborators/{username}/permission",
    anyOf: [{ metadata: "read" }],
  },
  {
    method: "put",
    path: "/repos/{owner}/{repo}/collaborators/{username}",
    anyOf: [{ administration: "write" }],
  },
  {
    method: "delete",
    path: "/repos/{owner}/{repo}/collaborators/{username}",
    anyOf: [{ administration: "write" }],
  },
  // Undo of a removed collaborator: the invitation a crashed try already sent (the permission
  // endpoint does not see it), and its role set to the one they had.
  { method: "get", path: "/repos/{owner}/{repo}/invitations", anyOf: [{ administration: "read" }] },
  {
    method: "patch",
    path: "/repos/{owner}/{repo}/invitations/{invitation_id}",
    anyOf: [{ administration: "write" }],
  },
  // A writable deploy key deleted (its pre-image read first) and, on undo, its public key added back.
  { method: "get", path: "/repos/{owner}/{repo}/keys/{key_id}", anyOf: [{ administration: "read" }] },
  { method: "delete", path: "/repos/{owner}/{repo}/keys/{key_id}", anyOf: [{ administration: "write" }] },
  { method: "post", path: "/repos/{owner}/{repo}/keys", anyOf: [{ administration: "write" }] },
];

const KEEP = ["type", "format", "enum", "nullable", "required", "minimum", "maximum"];

function refName(ref) {
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  if (!match) throw new Error(`Unexpected $ref ${ref}`);
  return match[1];
}

/** A schema, structure only; `seen` collects the component schemas it references. */
function strip(schema, seen) {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    seen.add(name);
    return { $ref: name };
  }
  const out = {};
  for (const key of KEEP) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, strip(v, seen)]),
    );
  if (schema.items) out.items = strip(schema.items, seen);
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (schema[key]) out[key] = schema[key].map((s) => strip(s, seen));
  if (typeof schema.additionalProperties === "object")
    out.additionalProperties = strip(schema.additionalProperties, seen);
  else if (schema.additionalProperties !== undefined) out.additionalProperties = schema.additionalProperties;
  return out;
}

function resolve(doc, node, kind) {
  if (!node.$ref) return node;
  const prefix = `#/components/${kind}/`;
  if (!node.$ref.startsWith(prefix)) throw new Error(`Unexpected $ref ${node.$ref}`);
  return doc.components[kind][node.$ref.slice(prefix.length)];
}

export function extract(doc, pkg) {
  const seen = new Set();
  const operations = OPERATIONS.map((wanted) => {
    const op = doc.paths[wanted.path]?.[wanted.method];
    if (!op) throw new Error(`${wanted.method.toUpperCase()} ${wanted.path} is not in the description`);
    const parameters = (op.parameters ?? []).map((p) => {
      const param = resolve(doc, p, "parameters");
      return {
        name: param.name,
        in: param.in,
        required: Boolean(param.required),
        schema: strip(param.schema ?? {}, seen),
      };
    });
    const body = op.requestBody?.content?.["application/json"]?.schema;
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, r]) => {
        const response = resolve(doc, r, "responses");
        const schema = response.content?.["application/json"]?.schema;
        return [status, schema ? { schema: strip(schema, seen) } : {}];
      }),
    );
    return {
      operationId: op.operationId,
      method: wanted.method.toUpperCase(),
      path: wanted.path,
      documentationUrl: op.externalDocs?.url ?? null,
      auth: wanted.auth ?? "installation",
      permissions: { anyOf: wanted.anyOf, ...(wanted.fields ? { fields: wanted.fields } : {}) },
      xGithub: op["x-github"],
      parameters,
      requestBody: body ? { required: Boolean(op.requestBody.required), schema: strip(body, seen) } : null,
      responses,
    };
  });
  const schemas = {};
  const queue = [...seen];
  while (queue.length > 0) {
    const name = queue.shift();
    if (name in schemas) continue;
    const source = doc.components.schemas[name];
    if (!source) throw new Error(`Schema ${name} is missing`);
    const found = new Set();
    schemas[name] = strip(source, found);
    for (const next of found) if (!(next in schemas)) queue.push(next);
  }
  return {
    source: {
      package: pkg.name,
      version: pkg.version,
      file: "generated/api.github.com.json",
      openapi: doc.openapi,
      infoVersion: doc.info.version,
      permissions: "github/docs src/github-apps/data/fpt-2022-11-28/server-to-server-permissions.json",
      regenerate: "node tooling/vendor-apis/extract-github.mjs <unpacked @octokit/openapi>",
    },
    operations,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2];
  if (!root) {
    console.error("usage: extract-github.mjs <unpacked @octokit/openapi package directory>");
    process.exit(2);
  }
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const doc = JSON.parse(readFileSync(join(root, "generated/api.github.com.json"), "utf8"));
  // Formatted as the repository's `pnpm format` checks it, so a regeneration diffs only what changed.
  const prettier = await import("prettier");
  const options = { ...(await prettier.resolveConfig(OUT)), filepath: OUT };
  writeFileSync(OUT, await prettier.format(JSON.stringify(extract(doc, pkg)), options));
  console.log(`wrote ${OUT}`);
}
