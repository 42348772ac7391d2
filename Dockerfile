# The service image: compiled JavaScript run by node, as a non-root user. One image, three roles
# (api, analysis-worker, delivery-worker): docker-compose.yml picks the role per service.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY proto ./proto
COPY gen ./gen
COPY src ./src
COPY workflows ./workflows
COPY data ./data
COPY console ./console
COPY tools ./tools
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The worker bundles the workflow code at start: it reads the compiled workflows/ under dist/.
USER node
EXPOSE 8080 50051 9464
CMD ["node", "dist/src/main.js", "--role", "all"]
