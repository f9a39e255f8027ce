import { Route, Routes } from 'react-router-dom';
import { PlatformDetailPage } from '../PlatformDetail';
import { PlatformListPage } from '../PlatformList';

/**
 * The plugin's routable extension: the list at its mount point and one
 * platform at `:namespace/:name` below it.
 */
export const InferencePlatformsPage = () => (
  <Routes>
    <Route path="/" element={<PlatformListPage />} />
    <Route path="/:namespace/:name" element={<PlatformDetailPage />} />
  </Routes>
);
