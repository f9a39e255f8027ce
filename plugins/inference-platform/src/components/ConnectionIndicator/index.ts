export { ConnectionIndicator } from './ConnectionIndicator';
