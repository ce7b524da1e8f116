# One image for the gateway and the scheduler; the command picks the app.
# The apps run as JavaScript bundles built in the image (`pnpm build`: esbuild, workspace
# packages compiled in, npm dependencies loaded from node_modules); no TypeScript loader at run time.
FROM node:20-slim AS base
ENV CI=true
# Installed globally (not through corepack's per-user cache) so the unprivileged user can run
# `pnpm cli` in the container too.
RUN npm install -g pnpm@10.34.9
WORKDIR /app

# Dependencies first, from the lockfile alone, so source edits do not refetch them.
FROM base AS deps
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN --mount=type=cache,id=pnpm,target=/root/.local/share/pnpm/store pnpm fetch --reporter=append-only

FROM deps AS app
COPY . .
RUN --mount=type=cache,id=pnpm,target=/root/.local/share/pnpm/store pnpm install --offline --frozen-lockfile --reporter=append-only \
    && pnpm build \
    && chown -R node:node /app
USER node
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# `node dist/main.js` rather than `pnpm start`: no wrapper process between the container runtime and
# Node, so Node receives SIGTERM itself and shuts down gracefully.
CMD ["node", "--enable-source-maps", "apps/gateway/dist/main.js"]
