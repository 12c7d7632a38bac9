// Time to a usable console page in headless Chromium, from Navigation Timing: the
// `console-rendered` performance mark (set once the page has drawn its data) measured
// from the navigation's start, plus the transferred bytes of the page's requests. Run by
// benches/console.sh with puppeteer-core from the Lighthouse install (LH_DIR).
//
//   node console_timing.mjs BASE COOKIE ROUNDS PATH...
//
// Prints one JSON line per (path, round): {path, round, renderedMs, domContentLoadedMs,
// transferBytes, requests}. Round 1 is a cold browser cache; later rounds revalidate.
import { createRequire } from 'node:module';

const require = createRequire(`${process.env.LH_DIR}/node_modules/`);
const puppeteer = require('puppeteer-core');

const [base, cookie, roundsText, ...paths] = process.argv.slice(2);
const rounds = Number(roundsText);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  acceptInsecureCerts: true,
  args: ['--no-sandbox', '--ignore-certificate-errors', '--window-size=1366,768'],
  defaultViewport: { width: 1366, height: 768 },
});
try {
  const page = await browser.newPage();
  const url = new URL(base);
  const [name, value] = cookie.split('=');
  await browser.setCookie({ name, value, domain: url.hostname, path: '/', secure: true, httpOnly: true, sameSite: 'Strict' });
  for (const path of paths) {
    for (let round = 1; round <= rounds; round += 1) {
      await page.goto(`${base}${path}`, { waitUntil: 'load' });
      await page.waitForFunction(() => performance.getEntriesByName('console-rendered').length > 0, { timeout: 60000 });
      const m = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const res = performance.getEntriesByType('resource');
        const mark = performance.getEntriesByName('console-rendered')[0];
        return {
          renderedMs: Math.round(mark.startTime),
          domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd),
          transferBytes: nav.transferSize + res.reduce((n, r) => n + r.transferSize, 0),
          requests: 1 + res.length,
        };
      });
      console.log(JSON.stringify({ path, round, ...m }));
    }
  }
} finally {
  await browser.close();
}
