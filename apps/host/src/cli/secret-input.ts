/**
 * Reads a secret value for `cyrnel services secrets set`: from stdin when it
 * is piped, or from a prompt that does not echo on a terminal. Never from
 * argv, where other users of the machine and shell history would see it.
 */
import { UsageError } from "./args.js";

export async function readSecret(prompt: string): Promise<string> {
  const value = process.stdin.isTTY ? await promptHidden(prompt) : stripNewline(await readAll(process.stdin));
  if (value === "") throw new UsageError("the secret value is empty (pipe it on stdin, or type it at the prompt)");
  return value;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** `echo value | cyrnel ...` appends one newline that is not part of the value. */
function stripNewline(text: string): string {
  return text.replace(/\r?\n$/, "");
}

function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  let value = "";
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") return finish();
        if (char === "\u0003") return finish(new UsageError("canceled"));
        if (char === "\u007f" || char === "\b") value = [...value].slice(0, -1).join("");
        else if (char >= " ") value += char;
      }
    };
    stdin.on("data", onData);
  });
}
