import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeFileStoreConformance } from '../../src/testing/file-store-conformance.js';
import { createRootedFileStore } from './rooted-file-store.js';

for (const portable of [false, true]) {
  describeFileStoreConformance(portable ? 'rooted folder (portable walk)' : 'rooted folder', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'tea-file-store-'));
    return {
      store: createRootedFileStore(directory, { portable, acceptRace: portable, warn: () => undefined }),
      cleanup: () => rm(directory, { recursive: true, force: true }),
    };
  });
}
