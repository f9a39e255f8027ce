import { Route, Routes } from 'react-router-dom';
import { PlatformDetailPage } from '../PlatformDetail';
import { PlatformListPage } from '../PlatformList';
import { FramedProvider } from '../PageFrame';

/**
 * The plugin's routable extension: the list at its mount point and one
 * platform at `:namespace/:name` below it. `framed={false}` leaves the page
 * frame to the app (the new frontend system).
 */
export const InferencePlatformsPage = (props: { framed?: boolean }) => (
  <FramedProvider framed={props.framed ?? true}>
    <Routes>
      <Route path="/" element={<PlatformListPage />} />
      <Route path="/:namespace/:name" element={<PlatformDetailPage />} />
    </Routes>
  </FramedProvider>
);
