export type LogLevel = 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, msg: string, fields?: object) => void;

/** One JSON object per line, the shape log collectors in the cluster expect. */
export function createLogger(
  stream: NodeJS.WritableStream = process.stdout,
): Logger {
  return (level, msg, fields) => {
    stream.write(
      `${JSON.stringify({
        time: new Date().toISOString(),
        level,
        msg,
        ...fields,
      })}\n`,
    );
  };
}
