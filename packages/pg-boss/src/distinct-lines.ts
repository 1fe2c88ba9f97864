/** A logger that prints an error once, not once per poll while Postgres is down. */
export function distinctLines(prefix: string): (error: Error) => void {
  let last = "";
  return (error) => {
    if (error.message === last) return;
    last = error.message;
    console.error(`${prefix}: ${error.message}`);
  };
}
