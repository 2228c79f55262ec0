import { parentPort, workerData } from 'node:worker_threads';
import { runLocalServerThread, type LocalServerThreadOptions } from '../src/local-server/thread.js';

// Thin entry: the local model server in a worker thread (see src/local-server/thread.ts).
if (parentPort) void runLocalServerThread(workerData as LocalServerThreadOptions, parentPort);
