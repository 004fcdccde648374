FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation fonts-noto-cjk fonts-noto-color-emoji python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV PUPPETEER_SKIP_DOWNLOAD=1 NODE_ENV=production CHROME_PATH=/usr/bin/chromium-headless-shell
WORKDIR /app
COPY package.json package-lock.json .puppeteerrc.cjs ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.build.json && npx tsc -p migrations/tsconfig.json
EXPOSE 3000
CMD ["node", "dist/main.js"]
