import { describeFileStoreConformance } from './file-store-conformance.js';
import { createMemoryFileStore } from './memory-file-store.js';

describeFileStoreConformance('memory', async () => ({ store: createMemoryFileStore() }));
