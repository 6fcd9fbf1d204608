// Renders an SVG file to PNG in headless Chromium, the whole drawing.
//   node svg-to-png.js IN.svg OUT.png
const { chromium } = require('playwright-core');

async function main() {
	const [svg, png] = process.argv.slice(2);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1100, height: 600 } });
	// Inline in a page: Chromium's screenshot of a bare SVG document hangs.
	const text = require('fs').readFileSync(svg, 'utf8').replace(/^<\?xml[^>]*>/, '');
	await page.setContent(`<html><body style="margin:0">${text}</body></html>`);
	await page.locator('svg').first().screenshot({ path: png });
	await browser.close();
}

main().catch((e) => {
	console.log('svg-to-png: ' + e.message.split('\n')[0]);
	process.exit(1);
});
