export { ReadinessBar } from './ReadinessBar';
