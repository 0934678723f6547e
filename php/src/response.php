<?php
// Answers as hitcost-server does (server/router.cpp, server/response.h): pages as
// text/html; charset=utf-8, errors as text/plain with the reason and a newline, always a
// Content-Length (nginx would otherwise chunk the FastCGI answer).
declare(strict_types=1);

function hc_send(int $status, string $contentType, string $body, array $headers = []): void
{
    http_response_code($status);
    header('Content-Type: ' . $contentType);
    header('Content-Length: ' . strlen($body));
    foreach ($headers as $name => $value) header("$name: $value");
    echo $body;
}

function hc_send_error(int $status, string $reason, array $headers = []): void
{
    hc_send($status, 'text/plain; charset=utf-8', $reason . "\n", $headers);
}
