export { Age } from './Age';
export { formatAge } from './formatAge';
