// A real HTTP server on a loopback port that answers requests from a script, in order, and
// records what it received: how the unit tests make 429s, 5xx, slow answers and dropped
// connections. Each answer is { status, body, headers, delay } or "drop" (close the socket
// after reading the request: the request was sent, no answer came).
import { createServer } from "node:http";

export async function scripted(answers) {
  const requests = [];
  const script = [...answers];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (c) => chunks.push(c));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      requests.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: text ? JSON.parse(text) : null,
      });
      const answer = script.shift();
      if (answer === undefined) {
        response.writeHead(599).end("unexpected request");
        return;
      }
      const step = typeof answer === "function" ? answer(requests.at(-1)) : answer;
      if (step === "drop") {
        request.socket.destroy();
        return;
      }
      const send = () => {
        const body = step.body === undefined ? "" : JSON.stringify(step.body);
        response.writeHead(step.status ?? 200, {
          "Content-Type": "application/json",
          "Service-Request-Id": step.requestId ?? "req_test",
          ...(step.headers ?? {}),
        });
        response.end(body);
      };
      if (step.delay) setTimeout(send, step.delay);
      else send();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    remaining: () => script.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}

export function errorBody(code, message = `${code} happened`, details) {
  return { error: { code, message, requestId: "req_test", ...(details ? { details } : {}) } };
}

export const API_KEY = "service_abcdefabcdef_" + "S".repeat(32);
