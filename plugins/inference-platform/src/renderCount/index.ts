export { countRender } from './countRender';
