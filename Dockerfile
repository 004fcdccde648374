# Two stages: compile with every dependency, then a runtime image with production dependencies only.
# No Docker daemon runs on the CI machine: `npm run docker:check` (scripts/docker-check.mjs) runs these steps in a
# clean directory and starts the result, so this file is checked without one.

FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# All dependencies (devDependencies hold tsc and the type packages the build needs): NODE_ENV stays unset here.
ENV PUPPETEER_SKIP_DOWNLOAD=1
WORKDIR /app
COPY package.json package-lock.json .puppeteerrc.cjs ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
# tsc copies only what it compiles: the dashboard's stylesheet and script are copied by build:static.
RUN npx tsc -p tsconfig.build.json && npx tsc -p migrations/tsconfig.json && npm run --silent build:static
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation fonts-noto-cjk fonts-noto-color-emoji ffmpeg \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin app \
 && mkdir -p /data && chown app /data
ENV NODE_ENV=production PUPPETEER_SKIP_DOWNLOAD=1 CHROME_PATH=/usr/bin/chromium-headless-shell DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json .puppeteerrc.cjs ./
USER app
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/main.js"]
