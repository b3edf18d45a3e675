#pragma once
#include <openssl/evp.h>
#include <openssl/err.h>
