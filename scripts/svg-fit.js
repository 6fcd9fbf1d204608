// Every text of an SVG drawn inside the picture: the SVG rendered in
// headless Chromium, each <text>'s box (getBBox(), in the SVG's user
// units, after the transforms of its groups) against the view box (or
// width and height when there is none).  Prints each text that leaves
// it, and exits 1 if any does.  Fonts are Chromium's, not the writer's
// estimate (graphviz sizes its boxes from its own metrics).
//   node svg-fit.js FILE.svg...
const { chromium } = require('playwright-core');
const fs = require('fs');

async function check(page, file) {
	const text = fs.readFileSync(file, 'utf8').replace(/^<\?xml[^>]*>/, '')
		.replace(/<!DOCTYPE[^>]*>/, '');
	await page.setContent(`<html><body style="margin:0">${text}</body></html>`);
	return page.evaluate(() => {
		const svg = document.querySelector('svg');
		const vb = svg.viewBox.baseVal;
		const box = vb && vb.width ? { x: vb.x, y: vb.y, w: vb.width, h: vb.height } :
			{ x: 0, y: 0, w: svg.width.baseVal.value, h: svg.height.baseVal.value };
		const out = [];
		let n = 0;
		for (const t of svg.querySelectorAll('text')) {
			if (!t.textContent.trim())
				continue;
			n++;
			// The text's box in the root's user units.
			const b = t.getBBox();
			const m = svg.getScreenCTM().inverse().multiply(t.getScreenCTM());
			const p = (x, y) => new DOMPoint(x, y).matrixTransform(m);
			const a = p(b.x, b.y), c = p(b.x + b.width, b.y + b.height);
			const x0 = Math.min(a.x, c.x), x1 = Math.max(a.x, c.x);
			const y0 = Math.min(a.y, c.y), y1 = Math.max(a.y, c.y);
			const slack = 0.5;
			if (x0 < box.x - slack || y0 < box.y - slack ||
			    x1 > box.x + box.w + slack || y1 > box.y + box.h + slack)
				out.push(`"${t.textContent.trim().slice(0, 60)}" at ${x0.toFixed(0)}-${x1.toFixed(0)} x ${y0.toFixed(0)}-${y1.toFixed(0)}, picture ${box.x}-${box.x + box.w} x ${box.y}-${box.y + box.h}`);
		}
		return { n, out };
	});
}

async function main() {
	const files = process.argv.slice(2);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	let bad = 0;
	for (const f of files) {
		const r = await check(page, f);
		for (const o of r.out)
			console.log(`svg-fit: ${f}: text beyond the picture's edge: ${o}`);
		if (!r.n) {
			console.log(`svg-fit: ${f}: no text at all`);
			bad++;
		}
		bad += r.out.length;
		if (!r.out.length && r.n)
			console.log(`svg-fit: ${f}: ${r.n} texts, all inside the picture`);
	}
	await browser.close();
	process.exit(bad ? 1 : 0);
}

main().catch((e) => {
	console.log('svg-fit: ' + e.message.split('\n')[0]);
	process.exit(1);
});
