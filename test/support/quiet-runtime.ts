import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes are INFO logs; tests keep warnings and errors only.
Runtime.install({ logger: new DefaultLogger('WARN') });
