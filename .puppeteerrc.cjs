// Puppeteer must never download a browser: this machine (and most servers) cannot, and the service
// uses the system's chromium-headless-shell instead (see README / scripts/setup.sh).
module.exports = { skipDownload: true };
