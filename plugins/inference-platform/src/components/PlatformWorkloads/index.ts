export { RolloutCard } from './RolloutCard';
export { VolumesCard } from './VolumesCard';
export { YamlCard } from './YamlCard';
export { PodLogsDialog } from './PodLogsDialog';
export { LinksCard } from './LinksCard';
