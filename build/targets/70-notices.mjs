// Third-party notices: the bundles in dist/ embed code from these packages (fengari and tau-prolog, patched at
// build time, are embedded in the bundles that run Lua or Prolog; the others in the worker, engine and web
// demo bundles). Their licenses ask that the notice travel with the code, so the build writes
// dist/THIRD_PARTY_NOTICES.md (and a copy beside the web demo) from each package's own files.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Packages whose code ends up inside a file under dist/. */
const EMBEDDED = [
  'fengari',
  'tau-prolog',
  'yaml',
  '@huggingface/jinja',
  '@cfworker/json-schema',
  'hono',
  'idb',
  'codemirror',
  '@codemirror/autocomplete',
  '@codemirror/commands',
  '@codemirror/lang-yaml',
  '@codemirror/language',
  '@codemirror/lint',
  '@codemirror/search',
  '@codemirror/state',
  '@codemirror/view',
  '@lezer/common',
  '@lezer/highlight',
  '@lezer/lr',
  '@lezer/yaml',
  '@marijn/find-cluster-break',
  'crelt',
  'style-mod',
  'w3c-keyname',
  're2js',
];

export default async function build({ root, exists }) {
  const sections = [];
  for (const name of EMBEDDED) {
    const directory = path.join(root, 'node_modules', name);
    if (!exists(path.join('node_modules', name, 'package.json'))) continue;
    const manifest = JSON.parse(await readFile(path.join(directory, 'package.json'), 'utf8'));
    const licenseFile = (await readdir(directory)).find((file) => /^(licen[cs]e|copying)(\.|$)/i.test(file));
    const text =
      licenseFile !== undefined
        ? (await readFile(path.join(directory, licenseFile), 'utf8')).trim()
        : `${manifest.license ?? 'see the package'} license (the package ships no license file)${authorOf(manifest)}.`;
    sections.push(`## ${name} ${manifest.version}\n\n${repositoryOf(manifest)}\`\`\`\n${text}\n\`\`\`\n`);
  }
  const notices = `# Third-party notices\n\nThe files in this package embed code from the packages below, under their licenses.\n\n${sections.join('\n')}`;
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await writeFile(path.join(root, 'dist/THIRD_PARTY_NOTICES.md'), notices);
  if (exists('dist/web-demo')) await writeFile(path.join(root, 'dist/web-demo/THIRD_PARTY_NOTICES.md'), notices);
}

function authorOf(manifest) {
  const author = typeof manifest.author === 'string' ? manifest.author : manifest.author?.name;
  return author ? `, by ${author}` : '';
}

function repositoryOf(manifest) {
  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  return repository ? `Source: ${repository}\n\n` : '';
}
