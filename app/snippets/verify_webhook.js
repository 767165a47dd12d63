const crypto = require("node:crypto");

function verify(secret, headers, body /* Buffer, the raw bytes */) {
  const id = headers["webhook-id"], timestamp = headers["webhook-timestamp"];
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) throw new Error("stale webhook");
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = crypto.createHmac("sha256", key)
    .update(`${id}.${timestamp}.`).update(body).digest();
  const ok = headers["webhook-signature"].split(" ").some((candidate) => {
    const [version, signature] = candidate.split(",");
    const given = Buffer.from(signature ?? "", "base64");
    return version === "v1" && given.length === expected.length
      && crypto.timingSafeEqual(given, expected);
  });
  if (!ok) throw new Error("no valid signature");
}
