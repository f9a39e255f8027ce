export { PhaseChip } from './PhaseChip';
