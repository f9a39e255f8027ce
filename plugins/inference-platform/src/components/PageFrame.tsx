import { createContext, ReactNode, useContext } from 'react';
import { Content, Header, Page } from '@backstage/core-components';

/**
 * Whether the plugin draws its own page frame (Page and Header, the legacy
 * frontend system) or lives in the frame the app gives every page (the new
 * frontend system's PageBlueprint).
 */
const FramedContext = createContext(true);

export function FramedProvider(props: {
  framed: boolean;
  children: ReactNode;
}) {
  return (
    <FramedContext.Provider value={props.framed}>
      {props.children}
    </FramedContext.Provider>
  );
}

/** Page + Header + Content where the plugin frames its pages, Content alone where the app does. */
export function PageFrame(props: {
  title: string;
  subtitle?: string;
  type?: string;
  typeLink?: string;
  children: ReactNode;
}) {
  const framed = useContext(FramedContext);
  if (!framed) return <Content>{props.children}</Content>;
  return (
    <Page themeId="tool">
      <Header
        title={props.title}
        subtitle={props.subtitle}
        type={props.type}
        typeLink={props.typeLink}
      />
      <Content>{props.children}</Content>
    </Page>
  );
}

export const useFramed = () => useContext(FramedContext);
