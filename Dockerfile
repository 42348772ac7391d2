FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY proto ./proto
COPY gen ./gen
COPY src ./src
COPY workflows ./workflows
COPY tsconfig.json ./
ENV NODE_ENV=production
EXPOSE 8080 50051
CMD ["npx", "tsx", "src/main.ts", "--role", "all"]
