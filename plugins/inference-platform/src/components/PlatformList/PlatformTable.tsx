import { useEffect, useRef, useState } from 'react';
import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import {
  Button,
  makeStyles,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TableSortLabel,
  Typography,
} from '@material-ui/core';
import { ListView, SortColumn, usePlatformsState } from '../../state';
import { countRender } from '../../renderCount';
import { PlatformRow, ROW_HEIGHT } from './PlatformRow';
import { useVirtualWindow } from './useVirtualWindow';

type Column = { id: SortColumn; label: string; width: string };

const COLUMNS: Column[] = [
  { id: 'name', label: 'Name', width: '19%' },
  { id: 'namespace', label: 'Namespace', width: '13%' },
  { id: 'phase', label: 'Phase', width: '10%' },
  { id: 'qdrant', label: 'Qdrant ready', width: '14%' },
  { id: 'inference', label: 'Inference ready', width: '14%' },
  { id: 'model', label: 'Model', width: '22%' },
  { id: 'age', label: 'Age', width: '8%' },
];

/** With more than one cluster, the cluster comes first and the model cell gives way. */
const COLUMNS_WITH_CLUSTER: Column[] = [
  { id: 'cluster', label: 'Cluster', width: '10%' },
  ...COLUMNS.map(c => (c.id === 'model' ? { ...c, width: '12%' } : c)),
];

const ALL = -1;
/** Above this many rows on a page, only the rows in view are rendered. */
const VIRTUALIZE_ABOVE = 100;

const useStyles = makeStyles({
  // Fixed layout: column widths must not depend on which rows are rendered.
  table: { tableLayout: 'fixed' },
  scroller: { maxHeight: '70vh' },
  spacer: { padding: 0, border: 0 },
});

/**
 * The platform table. Backstage's <Table> (material-table) owns its rows'
 * data and re-renders all of them on any change; this one renders rows that
 * subscribe to their own platform, so it re-renders only when rows come, go
 * or move.
 */
export function PlatformTable(props: { view: ListView }) {
  const { view } = props;
  countRender('PlatformTable');
  const classes = useStyles();
  const keys = useAtomValue(view.visibleKeysAtom);
  const [sort, setSort] = useAtom(view.sortAtom);
  const setText = useSetAtom(view.textAtom);
  const setPhases = useSetAtom(view.phasesAtom);
  const setClusterFilter = useSetAtom(view.clusterFilterAtom);
  const state = usePlatformsState();
  const showCluster = useAtomValue(state.clustersAtom).length > 1;
  const columns = showCluster ? COLUMNS_WITH_CLUSTER : COLUMNS;
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(50);
  const scroller = useRef<HTMLDivElement>(null);

  const pageCount =
    rowsPerPage === ALL ? 1 : Math.max(1, Math.ceil(keys.length / rowsPerPage));
  // Filtering can shrink the list below the current page.
  useEffect(() => {
    if (page >= pageCount) setPage(pageCount - 1);
  }, [page, pageCount]);

  const paged =
    rowsPerPage === ALL
      ? keys
      : keys.slice(page * rowsPerPage, (page + 1) * rowsPerPage);
  const virtual = paged.length > VIRTUALIZE_ABOVE;
  const { start, end, onScroll } = useVirtualWindow(
    scroller,
    paged.length,
    ROW_HEIGHT,
    virtual,
  );
  const shown = virtual ? paged.slice(start, end) : paged;

  const onSort = (column: SortColumn) =>
    setSort(
      sort.column === column
        ? { column, direction: sort.direction === 'asc' ? 'desc' : 'asc' }
        : { column, direction: 'asc' },
    );

  return (
    <Paper>
      <TableContainer
        ref={scroller}
        className={virtual ? classes.scroller : undefined}
        onScroll={virtual ? onScroll : undefined}
        data-testid="platform-table-scroller"
      >
        <Table
          size="small"
          stickyHeader={virtual}
          className={classes.table}
          aria-label="Inference platforms"
          aria-rowcount={keys.length + 1}
        >
          <TableHead>
            <TableRow>
              {columns.map(c => (
                <TableCell
                  key={c.id}
                  style={{ width: c.width }}
                  sortDirection={sort.column === c.id ? sort.direction : false}
                >
                  <TableSortLabel
                    active={sort.column === c.id}
                    direction={sort.column === c.id ? sort.direction : 'asc'}
                    onClick={() => onSort(c.id)}
                  >
                    {c.label}
                  </TableSortLabel>
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {virtual && start > 0 && (
              <TableRow style={{ height: start * ROW_HEIGHT }} aria-hidden>
                <TableCell
                  colSpan={columns.length}
                  className={classes.spacer}
                />
              </TableRow>
            )}
            {shown.map(key => (
              <PlatformRow
                key={key}
                platformKey={key}
                showCluster={showCluster}
              />
            ))}
            {virtual && end < paged.length && (
              <TableRow
                style={{ height: (paged.length - end) * ROW_HEIGHT }}
                aria-hidden
              >
                <TableCell
                  colSpan={columns.length}
                  className={classes.spacer}
                />
              </TableRow>
            )}
            {keys.length === 0 && (
              <TableRow>
                <TableCell colSpan={columns.length} align="center">
                  <Typography variant="body2" gutterBottom>
                    No platform matches the filter.
                  </Typography>
                  <Button
                    size="small"
                    color="primary"
                    onClick={() => {
                      setText('');
                      setPhases([]);
                      setClusterFilter([]);
                    }}
                  >
                    Clear filters
                  </Button>
                </TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePagination
        component="div"
        count={keys.length}
        page={Math.min(page, pageCount - 1)}
        rowsPerPage={rowsPerPage}
        rowsPerPageOptions={[25, 50, 100, { label: 'All', value: ALL }]}
        // MUI v4 computes "1--1" for the All option.
        labelDisplayedRows={({ from, to, count }) =>
          rowsPerPage === ALL
            ? `${count ? 1 : 0}-${count} of ${count}`
            : `${from}-${to} of ${count}`
        }
        onPageChange={(_e, p) => setPage(p)}
        onRowsPerPageChange={e => {
          setRowsPerPage(Number(e.target.value));
          setPage(0);
        }}
      />
    </Paper>
  );
}
