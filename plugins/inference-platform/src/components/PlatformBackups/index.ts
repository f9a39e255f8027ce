export { BackupsCard } from './BackupsCard';
