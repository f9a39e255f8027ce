import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// The component tests mount whole pages in a test app; on a loaded 2-core
// machine the defaults (1 s for findBy/waitFor, 5 s per test) flake.
configure({ asyncUtilTimeout: 5000 });
jest.setTimeout(30_000);
