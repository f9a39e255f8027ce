export { CanaryCard } from './CanaryCard';
