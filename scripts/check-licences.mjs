// `node scripts/check-licences.mjs`: fails when a production dependency of any workspace, direct or not, is under
// a copyleft licence (or one that restricts use the same way), declares none, or declares one this check cannot
// read. Meterdesk is MIT; what it ships must let it stay so.
//
// The packages are package-lock.json's, every one that is not dev-only (npm marks `dev` what only devDependencies
// reach, across all workspaces), for every platform: an optional binary not installed here is still checked by the
// licence the lock records. An installed package's own package.json says its licence, else the lock's copy of it.
// A licence is an SPDX expression: `A OR B` passes when either passes, `A AND B` when both do.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Licence families that bind what is built with the package (copyleft, weak or strong) or restrict its use
 * (source-available); matched as a word at the start of an SPDX id or of a free-text name, any version.
 */
const COPYLEFT = [
  'AGPL',
  'GPL',
  'LGPL',
  'GNU',
  'SSPL',
  'EUPL',
  'EPL',
  'Eclipse',
  'MPL',
  'Mozilla',
  'CDDL',
  'OSL',
  'Open Software License',
  'CPL',
  'CPAL',
  'CECILL',
  'RPL',
  'RPSL',
  'QPL',
  'APSL',
  'MS-RL',
  'NPL',
  'NPOSL',
  'IPL',
  'SimPL',
  'Sleepycat',
  'CC-BY-SA',
  'CC-BY-NC',
  'ODbL',
  'OFL',
  'SIL',
  'BUSL',
  'Elastic',
  'Commons-Clause',
  'PolyForm',
  'copyleft',
];
const COPYLEFT_PATTERN = new RegExp(`(?:^|[^a-z])(?:${COPYLEFT.join('|')})(?=$|[^a-z]|v\\d)`, 'i');

/**
 * Packages whose declared licence is wrong or incomplete, each read by hand, at the version that was read: another
 * version is checked by what it declares (and this entry, no longer matched, fails until it is updated or removed).
 */
const REVIEWED = {
  'paho-mqtt@1.1.0': {
    licence: 'EPL-1.0 OR BSD-3-Clause',
    reason:
      'declares EPL-1.0 only, but its about.html and the header of paho-mqtt.js offer the EPL 1.0 and the ' +
      'Eclipse Distribution License 1.0 (edl-v10 in the package, BSD-3-Clause); Meterdesk takes the EDL',
  },
  '@embedpdf/fonts-sc@1.0.0': {
    licence: 'OFL-1.1',
    reason:
      'Noto Sans Hans fonts under the SIL Open Font License 1.1, which binds only the fonts and fonts derived ' +
      'from them; it lets them be bundled and embedded with any software and leaves the documents made with ' +
      'them free (the PDF export embeds them unchanged)',
  },
  'buffers@0.1.1': {
    licence: 'MIT',
    reason:
      'declares none and ships no licence file; its repository (substack/node-buffers) has the MIT licence ' +
      'in LICENSE and "MIT/X11" in its later package.json',
  },
  'png-js@1.1.0': {
    licence: 'MIT',
    reason: 'declares none; its LICENSE file is the MIT licence',
  },
};

/** The `license` of a package.json, `licenses` (the old array form) read as all of them. */
function declared(manifest) {
  const { license, licenses } = manifest;
  if (typeof license === 'string') return license.trim();
  if (license && typeof license.type === 'string') return license.type.trim();
  if (Array.isArray(licenses) && licenses.length > 0) {
    const types = licenses.map((entry) => (typeof entry === 'string' ? entry : entry?.type));
    if (types.every((type) => typeof type === 'string' && type.trim() !== ''))
      return types.map((type) => `(${type.trim()})`).join(' AND ');
  }
  return '';
}

/**
 * Why an expression fails, or null when it passes. A term is a run of words (`MIT`, `GPL-3.0-or-later`,
 * `Apache 2.0`), optionally `WITH` an exception; OR binds looser than AND, case aside.
 */
function whyNot(expression) {
  if (expression === '' || /^UNLICENSED$/i.test(expression) || /^SEE LICEN[CS]E IN /i.test(expression))
    return 'no licence declared';
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const isOperator = (token) => /^(AND|OR|WITH)$/i.test(token ?? '');
  const term = () => {
    if (tokens[at] === '(') {
      at++;
      const inner = either();
      if (tokens[at++] !== ')') throw new Error('unbalanced parentheses');
      return inner;
    }
    const words = [];
    while (at < tokens.length && tokens[at] !== '(' && tokens[at] !== ')' && !/^(AND|OR)$/i.test(tokens[at]))
      words.push(tokens[at++]);
    if (words.length === 0 || isOperator(words[0]) || isOperator(words.at(-1))) throw new Error('a term is missing');
    const text = words.join(' ');
    return COPYLEFT_PATTERN.test(text) ? `${text} is copyleft or restricts use` : null;
  };
  const both = () => {
    const reasons = [term()];
    while (/^AND$/i.test(tokens[at] ?? '')) {
      at++;
      reasons.push(term());
    }
    return reasons.find((reason) => reason !== null) ?? null;
  };
  const either = () => {
    const reasons = [both()];
    while (/^OR$/i.test(tokens[at] ?? '')) {
      at++;
      reasons.push(both());
    }
    return reasons.includes(null) ? null : reasons.join(', and ');
  };
  try {
    const reason = either();
    if (at !== tokens.length) throw new Error(`unexpected "${tokens[at]}"`);
    return reason;
  } catch (error) {
    return `unreadable licence (${error.message})`;
  }
}

const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const failures = [];
const reviewed = [];
const used = new Set();
let checked = 0;
for (const [location, entry] of Object.entries(lock.packages ?? {})) {
  // The root and the workspaces are Meterdesk's own; a workspace's link is not a package.
  if (!location.includes('node_modules/') || entry.link || entry.dev) continue;
  const manifestPath = path.join(root, location, 'package.json');
  const installed = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : null;
  const name = installed?.name ?? entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 13);
  const version = installed?.version ?? entry.version;
  const licence = declared(installed ?? entry);
  const id = `${name}@${version}`;
  checked++;
  const exception = REVIEWED[id];
  if (exception) {
    used.add(id);
    reviewed.push(`  ${id}: declares ${licence || 'none'}, reviewed as ${exception.licence}: ${exception.reason}`);
    continue;
  }
  const reason = whyNot(licence);
  if (reason) failures.push(`  ${id} (${location}): ${licence || '-'}: ${reason}`);
}
for (const id of Object.keys(REVIEWED))
  if (!used.has(id))
    failures.push(`  ${id}: a reviewed exception no production dependency matches (updated or gone: review again)`);

if (reviewed.length > 0) console.log(`Reviewed exceptions:\n${reviewed.join('\n')}`);
if (failures.length > 0) {
  console.error(
    `Licence check FAILED: ${failures.length} of ${checked} production packages\n${failures.join('\n')}\n` +
      'Replace the package, or, where its declared licence is wrong, review it and add it to REVIEWED in ' +
      'scripts/check-licences.mjs (`npm explain <name>` says what pulls it in).',
  );
  process.exit(1);
}
console.log(`Licence check: ${checked} production packages, none copyleft or restricting use.`);
