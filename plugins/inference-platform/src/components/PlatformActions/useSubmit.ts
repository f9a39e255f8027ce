import { useCallback, useState } from 'react';
import { describeError } from '../../api';

/** Busy flag and a user-facing error for one dialog's submit action. */
export function useSubmit<T>(
  action: () => Promise<T>,
  onDone: (result: T) => void,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = useCallback(async () => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await action();
      setBusy(false);
      onDone(result);
    } catch (e) {
      setBusy(false);
      setError(describeError(e));
    }
  }, [action, onDone]);
  const reset = useCallback(() => setError(undefined), []);
  return { busy, error, submit, reset };
}
