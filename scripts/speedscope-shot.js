// Opens a Chrome JSON trace in speedscope (npm package) in headless
// Chromium, the way a user imports a file, and checks that speedscope
// read it: the track named, every track counted, the slices of a given
// name listed in its Sandwich table.  Saves a screenshot of each view.
//   node speedscope-shot.js SPEEDSCOPE_INDEX_HTML TRACE TRACKS NAME PNG_PREFIX
const { chromium } = require('playwright-core');

async function main() {
	const [index, trace, tracks, name, png] = process.argv.slice(2);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	await page.goto('file://' + index);
	await page.setInputFiles('input[type=file]', trace);
	// The title bar names the first track: "... CPU 0 (tid 0) (1/N)".
	const title = page.getByText(`(1/${tracks})`);
	await title.waitFor({ timeout: 30000 });
	const head = (await page.innerText('body')).split('\n').slice(0, 3).join(' | ');
	await page.screenshot({ path: `${png}-timeline.png` });
	await page.getByText('Sandwich').click();
	await page.getByText(name, { exact: false }).first().waitFor({ timeout: 30000 });
	await page.screenshot({ path: `${png}-sandwich.png` });
	await browser.close();
	if (errors.length) {
		console.log('speedscope: page errors: ' + errors.join('; '));
		process.exit(1);
	}
	if (!head.includes('CPU 0')) {
		console.log(`speedscope: no track "CPU 0" in "${head}"`);
		process.exit(1);
	}
	console.log(`speedscope: ${head}; ${tracks} tracks, "${name}" in the Sandwich table; screenshots ${png}-*.png`);
}

main().catch((e) => {
	console.log('speedscope: ' + e.message.split('\n')[0]);
	process.exit(1);
});
